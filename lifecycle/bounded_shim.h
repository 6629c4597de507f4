// bounded_shim.h declares the C entry points of bounded_shim.cc: the shared
// block cache and write-buffer manager of Kafka's documented
// BoundedMemoryRocksDBConfig, built with RocksDB's C++ API because RocksDB
// 7.8.3's C API has no write-buffer manager charged to a cache.
#ifndef ROCKSLEAK_BOUNDED_SHIM_H
#define ROCKSLEAK_BOUNDED_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// rocksleak_bounded owns one std::shared_ptr<rocksdb::Cache> and one
// std::shared_ptr<rocksdb::WriteBufferManager> charged to that cache.
typedef struct rocksleak_bounded rocksleak_bounded;

// rocksleak_bounded_new returns NULL and sets *errptr (malloc'd, caller frees)
// on failure.
rocksleak_bounded* rocksleak_bounded_new(size_t cache_bytes, size_t wbm_bytes,
                                         int strict_capacity,
                                         double high_pri_pool_ratio,
                                         char** errptr);

// rocksleak_bounded_destroy drops the shim's references (write-buffer manager
// first, then cache). Options and open DBs that were given them keep their
// own references. Must be called exactly once.
void rocksleak_bounded_destroy(rocksleak_bounded* b);

// rocksleak_bounded_apply sets, on a live rocksdb_options_t and a live
// rocksdb_block_based_table_options_t (passed as void*), the write-buffer
// manager and the table options' block cache and index/filter caching.
void rocksleak_bounded_apply(rocksleak_bounded* b, void* options,
                             void* table_options);

// rocksleak_bounded_usage reports RocksDB's own figures: Cache::GetUsage(),
// Cache::GetPinnedUsage(), WriteBufferManager::memory_usage().
void rocksleak_bounded_usage(rocksleak_bounded* b, uint64_t* cache_usage,
                             uint64_t* cache_pinned, uint64_t* wbm_usage,
                             uint64_t* wbm_dummy_in_cache);

uint64_t rocksleak_bounded_cache_capacity(rocksleak_bounded* b);
int rocksleak_bounded_strict_capacity(rocksleak_bounded* b);

// Probes that read fields of the C API's option objects through the same
// layout rocksleak_bounded_apply writes through; tests use them to prove the
// pointers taken from grocksdb point at live objects of the expected type.
uint64_t rocksleak_bounded_probe_write_buffer_size(void* options);
uint64_t rocksleak_bounded_probe_block_size(void* table_options);
int rocksleak_bounded_probe_uses(rocksleak_bounded* b, void* options,
                                 void* table_options);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ROCKSLEAK_BOUNDED_SHIM_H
