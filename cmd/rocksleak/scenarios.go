package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rocksleak/rocksleak/scenarios"
)

func scenariosCmd(stdout io.Writer, args []string) error {
	switch {
	case len(args) == 0:
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTORE\tTASKS×STORES\tLIVE SEGMENTS\tSTOP\tMODELS")
		for _, name := range scenarios.Names() {
			s, err := scenarios.Get(name)
			if err != nil {
				return err
			}
			def := ""
			if name == scenarios.DefaultName() {
				def = " (default)"
			}
			fmt.Fprintf(tw, "%s%s\t%s\t%d×%d\t%d\t%s\t%v\n", name, def, s.Store, s.Tasks, s.StoresPerTask,
				s.LiveSegments(), stopOf(s), s.Models)
		}
		return tw.Flush()
	case len(args) == 2 && args[0] == "show":
		s, _, err := scenarios.Load(args[1])
		if err != nil {
			return err
		}
		_, err = stdout.Write(s.CanonicalYAML())
		return err
	}
	return usagef("scenarios takes no argument, or: show NAME|FILE")
}

func stopOf(s scenarios.Scenario) string {
	switch {
	case s.Lifecycles > 0 && s.Duration > 0:
		return fmt.Sprintf("%d lifecycles or %s", s.Lifecycles, s.Duration)
	case s.Lifecycles > 0:
		return fmt.Sprintf("%d lifecycles", s.Lifecycles)
	}
	return s.Duration.String()
}
