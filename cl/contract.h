/* contract.h - what the host (host/) and the kernels (cl/) agree on, written once:
 * the search kernels' arguments, a match's two words, the counters and the packed text.
 * The host includes it; host/program.c puts it first in every kernel program. It is C and
 * OpenCL C at once: macros and one enum, nothing else. */
#ifndef CLM_CONTRACT_H
#define CLM_CONTRACT_H

/* The arguments of clm_find and clm_count (cl/kernels.cl), in order: X(NAME, type, name),
 * X0 for the first one. The types are OpenCL C's and are only expanded in the kernels.
 *   TEXT     the slab (or its packed form, PACKED), 16-byte aligned
 *   N        valid bytes in text
 *   OWNED    matches must start before this offset (the rest belong to the next slab)
 *   FIRST    start of the owned range (item kernels: work-item 0 begins here; a multiple of
 *            16 except in approximate search, which starts LEAD bytes into the slab)
 *   PAT      byte table (pattern or class map), PAT_LEN entries
 *   TAB      TAB_T table (fail, transitions, masks, shifts or witnesses), TAB_LEN entries
 *   COUNTER  the counters (CLM_COUNTER_*), zeroed by the host before a pass
 *   OUT      match buffer of CAP matches (CLM_MATCH_WORDS uints each)
 *   CAP      capacity of OUT, in matches
 *   INFO     the engine's first pattern slot: a match of the group's pattern j carries
 *            slot INFO + j (CLM_INFO_SLOT), the engine's counters are those of slot INFO */
#define CLM_KERNEL_ARG_LIST(X0, X)                                                          \
    X0(TEXT, __global const uchar *, text)                                                 \
    X(N, uint, n)                                                                          \
    X(OWNED, uint, owned)                                                                  \
    X(FIRST, uint, first)                                                                  \
    X(PAT, TABLE_ARG const uchar *, pat_in)                                                \
    X(TAB, TABLE_ARG const TAB_T *, tab_in)                                                \
    X(COUNTER, __global uint *, counter)                                                   \
    X(OUT, __global uint *, out)                                                           \
    X(CAP, uint, cap)                                                                      \
    X(INFO, uint, info)

/* Their indices, for clSetKernelArg: CLM_ARG_TEXT, CLM_ARG_N, ... */
#define CLM_ARG_INDEX(NAME, TYPE, VAR) CLM_ARG_##NAME,
enum clm_kernel_arg { CLM_KERNEL_ARG_LIST(CLM_ARG_INDEX, CLM_ARG_INDEX) CLM_ARG_COUNT };

/* clm_pack (kernels.cl, PACKED): text, n, the packed slab. */
#define CLM_PACK_ARG_TEXT 0
#define CLM_PACK_ARG_N 1
#define CLM_PACK_ARG_OUT 2

/* A match: CLM_MATCH_WORDS uints in OUT, its position in the slab (its start, or its
 * exclusive end for kernels that report ends), then its info: */
#define CLM_MATCH_WORDS 2
#define CLM_INFO_SLOT(info) ((info) & 0xffffffu) /* the pattern's slot */
#define CLM_INFO_EDITS_SHIFT 24                  /* edits, 7 bits (CLM_MAX_ERRORS <= 127) */
#define CLM_INFO_EDITS(info) (((info) >> CLM_INFO_EDITS_SHIFT) & 0x7fu)
#define CLM_INFO_RC_SHIFT 31 /* 1: the slot's reverse complement, searched in the same pass */
#define CLM_INFO_RC(info) ((info) >> CLM_INFO_RC_SHIFT)
#define CLM_MAX_SLOTS 0x1000000u

/* The counters: matches appended (past CAP too, so the host learns the room it needs), and
 * per engine, at its first slot f, its count (clm_count) and its staged kernel's queue of
 * regions (cl/kernels.cl clm_stage_loop). */
#define CLM_COUNTER_MATCHES 0
#define CLM_COUNTER_COUNT(f) (1u + 2u * (f))
#define CLM_COUNTER_QUEUE(f) (2u + 2u * (f))
#define CLM_COUNTER_WORDS(slots) (1u + 2u * (slots))

/* Packed DNA (PACKED): blocks of CLM_PACK_BASES bases in CLM_PACK_BLOCK bytes (16-byte
 * aligned): the 2-bit codes (A0 C1 G2 T3) first, base j at bits 2(j%4) of byte j/4; from byte
 * CLM_PACK_VALID the validity bits, base j at bit j%8 of byte CLM_PACK_VALID + j/8. */
#define CLM_PACK_BASES 128u
#define CLM_PACK_BLOCK 48u
#define CLM_PACK_VALID 32u
#define CLM_PACKED_BYTES(bases) (((bases) + CLM_PACK_BASES - 1u) / CLM_PACK_BASES * CLM_PACK_BLOCK)

/* The Aho-Corasick table (cl/aho.cl, TAB): a header of CLM_AHO_HEADER uints, then the
 * transitions: state v's row of classes entries at CLM_AHO_HEADER + v * classes, each entry
 * the next state's row offset (premultiplied: the walk is tab[state + class]). States with
 * matches ending there come last, from row offset OUT_MIN on; output state ordinal
 * o = (state - OUT_MIN) / classes has the first pattern ending there at HEAD + o and the next
 * shorter output state in its suffix chain at LINK + o; entry e (a literal variant of a
 * pattern) the next one ending in the same state at DUP + e and its pattern j in the group
 * at ID + e; pattern j's length at LEN + j (CLM_AHO_NONE ends a list). */
#define CLM_AHO_CLASSES 0
#define CLM_AHO_OUT_MIN 1
#define CLM_AHO_HEAD 2
#define CLM_AHO_LINK 3
#define CLM_AHO_DUP 4
#define CLM_AHO_LEN 5
#define CLM_AHO_ID 6
#define CLM_AHO_HEADER 8u
#define CLM_AHO_NONE 0xffffffffu

/* The sampled k-mer filter (cl/kmer.cl, host/kmer.c; TAB): a header of CLM_KMER_HEADER uints,
 * then the filter, 2^KMER_BITS bits (bit h of word h / 32), then per bucket b the first entry
 * at BUCKETS + b (entries of one bucket consecutive, BUCKETS + b + 1 ending them), each entry
 * two uints at ENTRIES + 2e: a q-gram's code and (pattern << 5 | offset of that q-gram in the
 * pattern); pattern j's first byte in PAT (the byte table) at INFO + 2j, its length at
 * INFO + 2j + 1. A q-gram's code: 2 bits per byte, (byte >> 1) & 3 (A0 C1 T2 G3 in either
 * case), the first byte lowest; its bucket: (code * CLM_KMER_MUL1) >> SHIFT. */
#define CLM_KMER_SHIFT 0
#define CLM_KMER_BUCKETS 1
#define CLM_KMER_ENTRIES 2
#define CLM_KMER_INFO 3
#define CLM_KMER_HEADER 8u
#define CLM_KMER_MUL1 0x9e3779b1u
#define CLM_KMER_MUL2 0x85ebca77u
#define CLM_KMER_MAX_STEP 32u

/* ---- records (cl/records.cl, host/records.c): SQL LIKE over a string column ------------ */

/* A compiled LIKE disjunction (host/like.c), the PROG argument: uints. Word 0 holds the
 * number of patterns P; pattern p's header is the CLM_LIKE_HEAD words at 1 + p *
 * CLM_LIKE_HEAD: its flags, its segments (the runs between '%'), the word of its first
 * segment record and its shortest row. A segment record is its symbols' first word and its
 * length; a symbol is a byte (folded when CASELESS) or CLM_LIKE_ANY ('_'). */
#define CLM_LIKE_HEAD 4u
#define CLM_LIKE_FLAGS 0u
#define CLM_LIKE_SEGS 1u
#define CLM_LIKE_SEG 2u
#define CLM_LIKE_MIN 3u
#define CLM_LIKE_F_NOT 1u      /* NOT LIKE */
#define CLM_LIKE_F_CASELESS 2u /* ILIKE: rows' bytes are folded before comparing */
#define CLM_LIKE_F_START 4u    /* the first segment sits at the row's start (no '%' before) */
#define CLM_LIKE_F_END 8u      /* the last segment ends at the row's end (no '%' after) */
#define CLM_LIKE_F_EXACT 16u   /* no '%': the row is the one segment (or empty) */
#define CLM_LIKE_ANY 256u
/* An approximate contains (host/approx.c) instead of segments: SEGS holds the pattern's
 * length m, SEG the word of its 256 masks (the ulong of byte c as two uints, low then high:
 * bit i set when pattern byte i is c, both cases when CASELESS), MIN the shortest row that
 * can hold an occurrence, and the flags' bits from CLM_LIKE_K_SHIFT the errors allowed. */
#define CLM_LIKE_F_APPROX 32u
#define CLM_LIKE_F_MISMATCHES 64u /* approximate: substitutions only (Hamming) */
#define CLM_LIKE_K_SHIFT 8u
#define CLM_LIKE_APPROX_MAX_K 8u /* clmatch.h CLM_APPROX_MAX_ERRORS */
#define CLM_LIKE_APPROX_WORDS 512u
#define CLM_LIKE_NONE 0xffffffffffffffffUL /* no position (clmatch.h CLM_NO_POSITION) */
/* A pivoted column (PIVOT, clmatch.h clm_column_pivot): DATA starts with a ulong per group of
 * CLM_PIVOT_GROUP rows, the byte where the group's block starts; in it piece p (PIVOT bytes)
 * of the group's row l is at p * CLM_PIVOT_GROUP * PIVOT + l * PIVOT. */
#define CLM_PIVOT_GROUP 32u

/* clm_like_match's arguments: a work-item per row of a batch of ROWS rows (and
 * clm_like_match_group's: a work-group per row, 8 rows per group; GROUPS unwritten).
 *   DATA      the string bytes; row r is DATA[offsets[ROW_OFF + r] - BASE, offsets[...+1] - BASE)
 *   OFFSETS   OFF_T offsets (RECORDS bits)
 *   VALID     validity bytes; row r's bit is VBIT + r; HAS_VALID 0: no NULL
 *   PROG      the predicate (above)
 *   BITMAP    out: a bit per row, LSB first, a byte per 8 rows
 *   GROUPS    out: rows selected per work-group
 *   POS       out when WANT_POS: each row's first match position (CLM_LIKE_NONE) */
#define CLM_LIKE_ROW_ARG_LIST(X0, X) /* the rows of a batch: the first arguments of both */ \
    X0(DATA, __global const uchar *, data)                                                 \
    X(OFFSETS, __global const OFF_T *, offsets)                                            \
    X(VALID, __global const uchar *, valid)                                                \
    X(VBIT, ulong, vbit)                                                                   \
    X(HAS_VALID, uint, has_valid)                                                          \
    X(ROWS, uint, rows)                                                                    \
    X(ROW_OFF, ulong, row_off)                                                             \
    X(BASE, ulong, base)                                                                   \
    X(PROG, __global const uint *, prog)
#define CLM_LIKE_MATCH_ARG_LIST(X0, X)                                                      \
    CLM_LIKE_ROW_ARG_LIST(X0, X)                                                           \
    X(BITMAP, __global uchar *, bitmap)                                                    \
    X(GROUPS, __global uint *, groups)                                                     \
    X(POS, __global ulong *, pos)                                                          \
    X(WANT_POS, uint, want_pos)
#define CLM_LIKE_ROW_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_ROW_ARG_##NAME,
enum clm_like_row_arg {
    CLM_LIKE_ROW_ARG_LIST(CLM_LIKE_ROW_ARG_INDEX, CLM_LIKE_ROW_ARG_INDEX) CLM_LIKE_ROW_ARG_COUNT
};
#define CLM_LIKE_MATCH_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_MATCH_ARG_##NAME,
enum clm_like_match_arg {
    CLM_LIKE_MATCH_ARG_LIST(CLM_LIKE_MATCH_ARG_INDEX, CLM_LIKE_MATCH_ARG_INDEX)
        CLM_LIKE_MATCH_ARG_COUNT
};

/* clm_like_match_seg's (CLM_ROWS_SEGMENT, seed 004's Seg-k-t): clm_like_match's (GROUPS
 * unwritten), then
 *   SEG_T     work-items per row: 2 to WG / 8, a power of 2 (a group holds WG / SEG_T rows)
 *   SEG_K     places per slice, 1 or more */
#define CLM_LIKE_SEG_ARG_LIST(X0, X)                                                        \
    CLM_LIKE_MATCH_ARG_LIST(X0, X)                                                         \
    X(SEG_T, uint, seg_t)                                                                  \
    X(SEG_K, uint, seg_k)
#define CLM_LIKE_SEG_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_SEG_ARG_##NAME,
enum clm_like_seg_arg {
    CLM_LIKE_SEG_ARG_LIST(CLM_LIKE_SEG_ARG_INDEX, CLM_LIKE_SEG_ARG_INDEX) CLM_LIKE_SEG_ARG_COUNT
};

/* clm_like_aho_local / clm_like_aho_global's (CLM_ROWS_AUTOMATON: a disjunction of contains
 * as one Aho-Corasick walk per row, host/like.c): clm_like_match's (PROG unread), then
 *   AHO       CLM_LIKE_AHO_MAP uints of class map (byte b of them: text byte b's class), then
 *             the automaton of every pattern's literal (CLM_AHO_*: row offsets from there)
 *   AHO_WORDS the automaton's uints
 *   CACHE     local memory: the class map, and for _local the automaton after it */
#define CLM_LIKE_AHO_MAP 64u
#define CLM_LIKE_AHO_ARG_LIST(X0, X)                                                        \
    CLM_LIKE_MATCH_ARG_LIST(X0, X)                                                         \
    X(AHO, __global const uint *, aho)                                                     \
    X(AHO_WORDS, uint, aho_words)                                                          \
    X(CACHE, __local uint *, cache)
#define CLM_LIKE_AHO_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_AHO_ARG_##NAME,
enum clm_like_aho_arg {
    CLM_LIKE_AHO_ARG_LIST(CLM_LIKE_AHO_ARG_INDEX, CLM_LIKE_AHO_ARG_INDEX) CLM_LIKE_AHO_ARG_COUNT
};

/* clm_like_count's, after clm_like_match_group (a work-group per row), which leaves GROUPS
 * unwritten: GROUPS[g] gets the set bits of BITMAP's rows [g * WG, (g + 1) * WG). */
#define CLM_LIKE_COUNT_ARG_LIST(X0, X)                                                      \
    X0(BITMAP, __global const uchar *, bitmap)                                             \
    X(ROWS, uint, rows)                                                                    \
    X(GROUPS, __global uint *, groups)
#define CLM_LIKE_COUNT_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_COUNT_ARG_##NAME,
enum clm_like_count_arg {
    CLM_LIKE_COUNT_ARG_LIST(CLM_LIKE_COUNT_ARG_INDEX, CLM_LIKE_COUNT_ARG_INDEX)
        CLM_LIKE_COUNT_ARG_COUNT
};

/* clm_like_ids32 / clm_like_ids64's: the row ids of the set bits of a batch's BITMAP, group g
 * from BASES[g] on (an exclusive prefix sum of GROUPS), each ROW0 + its row; with WANT_POS
 * their positions from POS into POS_OUT alike. */
#define CLM_LIKE_IDS_ARG_LIST(X0, X)                                                        \
    X0(BITMAP, __global const uchar *, bitmap)                                             \
    X(ROWS, uint, rows)                                                                    \
    X(BASES, __global const uint *, bases)                                                 \
    X(ROW0, ulong, row0)                                                                   \
    X(IDS, __global ID_T *, ids)                                                           \
    X(POS, __global const ulong *, pos)                                                    \
    X(POS_OUT, __global ulong *, pos_out)                                                  \
    X(WANT_POS, uint, want_pos)
#define CLM_LIKE_IDS_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_IDS_ARG_##NAME,
enum clm_like_ids_arg {
    CLM_LIKE_IDS_ARG_LIST(CLM_LIKE_IDS_ARG_INDEX, CLM_LIKE_IDS_ARG_INDEX) CLM_LIKE_IDS_ARG_COUNT
};

/* clm_like_verify's (CLM_ROWS_FILTER: filter and verify): the search kernels, built with
 * EMIT_BLOCKS=LIKE_BLOCK (cl/common.cl clm_emit), set bit b of BLOCKS when a match's
 * position in a piece of the batch's bytes that starts at DATA[ORIGIN] is in block b of
 * LIKE_BLOCK bytes (the records program's build option: CLM_LIKE_BLOCK on GPUs,
 * CLM_LIKE_BLOCK_CPU on CPUs, where a smaller block verifies fewer rows a match and the
 * verification's byte loops, not the bitmap, take the time); the rows holding a marked block's bytes (and the byte before each
 * when ENDS: positions are exclusive ends) are matched, each row's bit in BITMAP (uint words,
 * a bit per row) set when one of PROG's patterns matches, NOT ignored (clm_like_invert turns
 * NOT LIKE's matches into its selection). On GPUs in two launches a piece: STAGE 0, a
 * work-item per uint of BLOCKS (32 blocks of NBLOCKS) lists its blocks' rows, each once, in
 * LIST (at most LIST_CAP entries: the batch's rows and a row more per uint of BLOCKS),
 * counting them in LISTED (zeroed before); STAGE 1, work-items taking LIST's entries in turn
 * (the grid's size apart) match them. On CPUs in one: STAGE 2, a work-item per uint of
 * BLOCKS matches its blocks' rows itself.
 *   DATA ... BASE  as clm_like_match's
 *   POS       out when WANT_POS: the matched rows' first match positions */
#define CLM_LIKE_BLOCK 64u
#define CLM_LIKE_BLOCK_CPU 16u
#define CLM_LIKE_VERIFY_ARG_LIST(X0, X)                                                     \
    CLM_LIKE_ROW_ARG_LIST(X0, X)                                                           \
    X(BLOCKS, __global const uint *, blocks)                                               \
    X(NBLOCKS, uint, nblocks)                                                              \
    X(ORIGIN, ulong, origin)                                                               \
    X(ENDS, uint, ends)                                                                    \
    X(BITMAP, __global uint *, bitmap)                                                     \
    X(POS, __global ulong *, pos)                                                          \
    X(WANT_POS, uint, want_pos)                                                            \
    X(LIST, __global uint *, list)                                                         \
    X(LISTED, __global uint *, listed)                                                     \
    X(LIST_CAP, uint, list_cap)                                                            \
    X(STAGE, uint, stage)
#define CLM_LIKE_VERIFY_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_VERIFY_ARG_##NAME,
enum clm_like_verify_arg {
    CLM_LIKE_VERIFY_ARG_LIST(CLM_LIKE_VERIFY_ARG_INDEX, CLM_LIKE_VERIFY_ARG_INDEX)
        CLM_LIKE_VERIFY_ARG_COUNT
};

/* clm_like_invert's (a NOT LIKE after clm_like_verify): a work-item per BITMAP word of a
 * batch of ROWS rows makes its rows' bits "not NULL and not matched"; bits past ROWS 0. */
#define CLM_LIKE_INVERT_ARG_LIST(X0, X)                                                     \
    X0(BITMAP, __global uint *, bitmap)                                                    \
    X(ROWS, uint, rows)                                                                    \
    X(VALID, __global const uchar *, valid)                                                \
    X(VBIT, ulong, vbit)                                                                   \
    X(HAS_VALID, uint, has_valid)
#define CLM_LIKE_INVERT_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_INVERT_ARG_##NAME,
enum clm_like_invert_arg {
    CLM_LIKE_INVERT_ARG_LIST(CLM_LIKE_INVERT_ARG_INDEX, CLM_LIKE_INVERT_ARG_INDEX)
        CLM_LIKE_INVERT_ARG_COUNT
};

/* clm_like_text_index, _search and _select's (CLM_ROWS_FILTER for one LIKE or NOT LIKE
 * whose segments are one or two literals between '%'s, '%a%' or '%a%b%': cl/like_text.cl,
 * host/records_text.c), the rows' arguments, then
 *   INDEX   the row holding byte B0 + k CLM_LIKE_TEXT_GRAIN of DATA, for each k before the
 *           batch's end (stage 0 writes it)
 *   B0      where the batch's bytes start in DATA, aligned down to 16
 *   ORIGIN  the piece's first start (16-aligned); OWNED: the starts before it are the piece's
 *   AVAIL   the batch's end in DATA: bytes before it may be read
 *   SEGS    s0 segment a's first symbol word in PROG, s1 its length, s2-s4 its first three
 *           bytes each replicated 4 times, s5-s6 all-ones where it has a second and a third;
 *           s7 the pattern's flags; s8-sd segment b's length (0: no b) and words as s1-s6;
 *           se b's first symbol word
 *   FIRST   per row, the end of a's first place in it (from the row's start; 0xffffffff:
 *           none); LAST, two segments: 1 + the start of b's last place (0: none)
 *   BITMAP, GROUPS, POS, WANT_POS  as clm_like_match's, written by stage 2
 *   PLACES  stage 3: the places found are added to it
 *   STAGE   0 FIRST and LAST cleared and the index written (_index: a work-item per row),
 *           1 the search (_search: a work-item per CLM_LIKE_TEXT_CHUNK bytes), 2 the
 *           selection (_select: a work-item per row), 3 the search counting its places
 *           (auto's probe) */
#define CLM_LIKE_TEXT_GRAIN 128u
#define CLM_LIKE_TEXT_CHUNK 64u
#define CLM_LIKE_TEXT_ARG_LIST(X0, X)                                                       \
    CLM_LIKE_ROW_ARG_LIST(X0, X)                                                           \
    X(INDEX, __global uint *, index)                                                       \
    X(B0, ulong, b0)                                                                       \
    X(ORIGIN, ulong, origin)                                                               \
    X(OWNED, ulong, owned)                                                                 \
    X(AVAIL, ulong, avail)                                                                 \
    X(SEGS, uint16, segs)                                                                  \
    X(FIRST, __global uint *, first)                                                       \
    X(LAST, __global uint *, last)                                                         \
    X(BITMAP, __global uchar *, bitmap)                                                    \
    X(GROUPS, __global uint *, groups)                                                     \
    X(POS, __global ulong *, pos)                                                          \
    X(WANT_POS, uint, want_pos)                                                            \
    X(PLACES, __global uint *, places)                                                     \
    X(STAGE, uint, stage)
#define CLM_LIKE_TEXT_ARG_INDEX(NAME, TYPE, VAR) CLM_LIKE_TEXT_ARG_##NAME,
enum clm_like_text_arg {
    CLM_LIKE_TEXT_ARG_LIST(CLM_LIKE_TEXT_ARG_INDEX, CLM_LIKE_TEXT_ARG_INDEX)
        CLM_LIKE_TEXT_ARG_COUNT
};

/* The Hamming table (cl/hamming.cl, TAB): a header of CLM_HAMMING_HEADER uints, then RUNS
 * runs of patterns whose exact ends are the same bases at the same places. A run: its
 * pattern count, W = (M + 7) / 8 masks of those places (bit 4 (i % 8) of mask i / 8 for
 * symbol i), W uints of their nibbles, then per pattern a record of STRIDE = 2 + W uints:
 * its place j in the group, its length in symbols, its symbols as one-hot nibbles, 8 a uint
 * (symbol i at bits 4 (i % 8) of uint i / 8; padding nibbles 0). PAT maps each text byte to
 * its nibble (0: in no pattern's set). */
#define CLM_HAMMING_RUNS 0
#define CLM_HAMMING_STRIDE 1
#define CLM_HAMMING_HEADER 4u
/* A work-group's queue of candidate starts (cl/hamming.cl): CLM_HAMMING_QUEUE entries per
 * work-item, and CLM_HAMMING_QUEUE_GROUP at least (small CPU groups: fewer rounds); a group
 * with more candidates for a run goes through them in rounds. */
#define CLM_HAMMING_QUEUE 4u
#define CLM_HAMMING_QUEUE_GROUP 1024u
#define CLM_HAMMING_QUEUE_LEN(wg)                                                           \
    (CLM_HAMMING_QUEUE * (wg) > CLM_HAMMING_QUEUE_GROUP ? CLM_HAMMING_QUEUE * (wg)          \
                                                         : CLM_HAMMING_QUEUE_GROUP)
/* Patterns of up to CLM_HAMMING_PLANES_MAX symbols are compared as bit planes, each
 * work-item holding CLM_HAMMING_HELD patterns of a run in registers, and a group
 * CLM_HAMMING_TILE at least (small CPU groups: each walk of the text serves more). */
#define CLM_HAMMING_PLANES_MAX 32u
#define CLM_HAMMING_HELD 4u
#define CLM_HAMMING_TILE 1024u
#define CLM_HAMMING_HELD_BY(wg)                                                             \
    (CLM_HAMMING_TILE / (wg) > CLM_HAMMING_HELD ? CLM_HAMMING_TILE / (wg) : CLM_HAMMING_HELD)

#endif
