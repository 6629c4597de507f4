// bounded_shim.cc: Kafka's documented BoundedMemoryRocksDBConfig on RocksDB
// 7.8.3 through its C++ API (see bounded_shim.h and bounded.go).

#include "bounded_shim.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "rocksdb/cache.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/write_buffer_manager.h"

// The C API's opaque option types, defined exactly as RocksDB 7.8.3's
// db/c.cc defines them (one member, `rep`). Re-declaring a class with an
// identical definition in another translation unit is what the one-definition
// rule allows; it is the way C++ code extends RocksDB's C API. If librocksdb
// changed these definitions, the probes below (and bounded_test.go) would
// read nonsense and fail.
extern "C" {
struct rocksdb_options_t {
  ROCKSDB_NAMESPACE::Options rep;
};
struct rocksdb_block_based_table_options_t {
  ROCKSDB_NAMESPACE::BlockBasedTableOptions rep;
};
}

struct rocksleak_bounded {
  // Declared in creation order; members are destroyed in reverse, so the
  // write-buffer manager (which holds a cache reservation manager referring
  // to the cache) is released before the shim's cache reference.
  std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache;
  std::shared_ptr<ROCKSDB_NAMESPACE::WriteBufferManager> wbm;
  bool strict;
};

static char* dup_error(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p != nullptr) {
    std::memcpy(p, s.c_str(), s.size() + 1);
  }
  return p;
}

extern "C" {

rocksleak_bounded* rocksleak_bounded_new(size_t cache_bytes, size_t wbm_bytes,
                                         int strict_capacity,
                                         double high_pri_pool_ratio,
                                         char** errptr) {
  try {
    auto* b = new rocksleak_bounded;
    b->strict = strict_capacity != 0;
    // Kafka docs: new LRUCache(TOTAL_OFF_HEAP_MEMORY, -1, strict,
    // INDEX_FILTER_BLOCK_RATIO).
    b->cache = ROCKSDB_NAMESPACE::NewLRUCache(cache_bytes, -1, b->strict,
                                              high_pri_pool_ratio);
    if (!b->cache) {
      delete b;
      *errptr = dup_error("NewLRUCache returned no cache");
      return nullptr;
    }
    // Kafka docs: new WriteBufferManager(TOTAL_MEMTABLE_MEMORY, cache).
    b->wbm = std::make_shared<ROCKSDB_NAMESPACE::WriteBufferManager>(
        wbm_bytes, b->cache, /*allow_stall=*/false);
    return b;
  } catch (const std::exception& e) {
    *errptr = dup_error(e.what());
    return nullptr;
  }
}

void rocksleak_bounded_destroy(rocksleak_bounded* b) { delete b; }

void rocksleak_bounded_apply(rocksleak_bounded* b, void* options,
                             void* table_options) {
  auto* o = static_cast<rocksdb_options_t*>(options);
  auto* t = static_cast<rocksdb_block_based_table_options_t*>(table_options);
  // tableConfig.setBlockCache(cache);
  // tableConfig.setCacheIndexAndFilterBlocks(true);
  // options.setWriteBufferManager(writeBufferManager);
  // tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
  // tableConfig.setPinTopLevelIndexAndFilter(true);
  t->rep.block_cache = b->cache;
  t->rep.no_block_cache = false;
  t->rep.cache_index_and_filter_blocks = true;
  t->rep.cache_index_and_filter_blocks_with_high_priority = true;
  t->rep.pin_top_level_index_and_filter = true;
  o->rep.write_buffer_manager = b->wbm;
}

void rocksleak_bounded_usage(rocksleak_bounded* b, uint64_t* cache_usage,
                             uint64_t* cache_pinned, uint64_t* wbm_usage,
                             uint64_t* wbm_dummy_in_cache) {
  *cache_usage = b->cache->GetUsage();
  *cache_pinned = b->cache->GetPinnedUsage();
  *wbm_usage = b->wbm->memory_usage();
  *wbm_dummy_in_cache = b->wbm->dummy_entries_in_cache_usage();
}

uint64_t rocksleak_bounded_cache_capacity(rocksleak_bounded* b) {
  return b->cache->GetCapacity();
}

int rocksleak_bounded_strict_capacity(rocksleak_bounded* b) {
  return b->cache->HasStrictCapacityLimit() ? 1 : 0;
}

uint64_t rocksleak_bounded_probe_write_buffer_size(void* options) {
  return static_cast<rocksdb_options_t*>(options)->rep.write_buffer_size;
}

uint64_t rocksleak_bounded_probe_block_size(void* table_options) {
  return static_cast<rocksdb_block_based_table_options_t*>(table_options)
      ->rep.block_size;
}

int rocksleak_bounded_probe_uses(rocksleak_bounded* b, void* options,
                                 void* table_options) {
  auto* o = static_cast<rocksdb_options_t*>(options);
  auto* t = static_cast<rocksdb_block_based_table_options_t*>(table_options);
  return (o->rep.write_buffer_manager == b->wbm &&
          t->rep.block_cache == b->cache)
             ? 1
             : 0;
}

}  // extern "C"
