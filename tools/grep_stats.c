/* The main mode's --stats report (tools/grep_stats.h). */
#include "grep_stats.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli_common.h"
#include "list_devices.h"

void grep_print_stats(const clm_device *dev, const clm_database *db, const clm_scratch *scratch,
                      uint64_t bytes_in, double setup_s, double search_s)
{
    clm_device_info di;
    clm_database_info dbi;
    clm_stats s;
    if (clm_device_get_info(dev, &di, sizeof di) == CLM_OK)
        fprintf(stderr, "clmatch: device %d:%d: %s (%s, %s)\n", di.platform_index,
                di.device_index, di.name, cli_device_type_name(di.type), di.platform_name);
    cli_stats_tuning(dev);
    if (clm_database_get_info(db, &dbi, sizeof dbi) == CLM_OK) {
        fprintf(stderr, "clmatch: algorithm %s (%s), table memory %s, k=%u%s%s%s",
                clm_algorithm_name(dbi.algorithm), clm_variant_name(dbi.variant),
                clm_table_memory_name(dbi.table_memory), dbi.max_errors,
                dbi.flags & CLM_MISMATCHES_ONLY ? " (mismatches only)" : "",
                dbi.flags & CLM_CLASSES ? ", classes" : "",
                dbi.flags & CLM_CASELESS ? ", caseless" : "");
        cli_stats_choice(&dbi);
        char loads[32] = "", staged[96] = "";
        if (dbi.vector_width)
            snprintf(loads, sizeof loads, ", %u-byte loads", dbi.vector_width);
        if (dbi.staged)
            snprintf(staged, sizeof staged,
                     ", text staged in local memory (%u groups per compute unit%s)",
                     dbi.groups_per_unit, dbi.prefetch ? ", next region prefetched" : "");
        fprintf(stderr,
                "clmatch: %u pattern(s) of %zu..%zu symbols, work-group %u, %u bytes/item%s%s, "
                "kernels %s\n",
                dbi.pattern_count, dbi.min_length, dbi.max_length, dbi.work_group_size,
                dbi.bytes_per_item, staged, loads, dbi.cache_hit ? "from cache" : "built");
    }
    if (clm_scratch_get_stats(scratch, &s, sizeof s) == CLM_OK) {
        fprintf(stderr,
                "clmatch: scanned %" PRIu64 " bytes in %" PRIu64 " slab(s), %" PRIu64
                " occurrence(s), %" PRIu64 " rescan(s)\n",
                s.bytes, s.slabs, s.matches, s.rescans);
        fputs("clmatch: ", stderr);
        cli_stats_kernel(&s);
    }
    cli_stats_scratch(scratch);
    cli_stats_setup(setup_s, search_s);
    if (search_s > 0)
        fprintf(stderr, " (%" PRIu64 " bytes, %.2f GB/s)", bytes_in,
                (double)bytes_in / search_s / 1e9);
    fputc('\n', stderr);
    cli_stats_breakdown(dev, db, scratch, setup_s, search_s);
}
