package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Keeps the secrets of the user's properties out of everything the child writes (events, standard error): every
 * value of a secret key is replaced by {@link #MARK} wherever it appears. Secret keys: {@code sasl.jaas.config} and
 * every {@code sasl.*} and {@code ssl.*} key, and every key whose last part names a password, secret, credential,
 * token or user info (docs/your-application.md; the Go parent applies the same rule, harness.AppSecrets).
 */
final class AppRedactor {
    static final String MARK = "[redacted]";
    private final List<String> secrets = new ArrayList<>();

    AppRedactor(final Properties p) {
        for (final String k : p.stringPropertyNames()) {
            final String v = p.getProperty(k);
            if (isSecret(k) && v != null && !v.isEmpty()) {
                secrets.add(v);
            }
        }
        secrets.sort(Comparator.comparingInt(String::length).reversed()); // a longer secret first
    }

    static boolean isSecret(final String key) {
        final String k = key.toLowerCase(Locale.ROOT);
        final String last = k.substring(k.lastIndexOf('.') + 1);
        return k.startsWith("sasl.") || k.startsWith("ssl.") || k.contains(".sasl.") || k.contains(".ssl.")
            || last.contains("password") || last.contains("secret") || last.contains("credential")
            || last.contains("token") || k.endsWith("user.info") || last.equals("jaas");
    }

    String redact(final String s) {
        if (s == null) {
            return null;
        }
        String out = s;
        for (final String v : secrets) {
            out = out.replace(v, MARK);
        }
        return out;
    }
}
