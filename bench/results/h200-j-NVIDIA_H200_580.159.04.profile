clmatch-profile 1 device="NVIDIA H200" driver="580.159.04"
# measured by clmatch-tune 0.1.0 in 56 s: 1073741824 bytes of a genome, patterns of 13 and 32 bytes,
# kernel time best of 7; 0.99x the built-in speed (geometric mean):
# dfa: 2387.28 GB/s tuned (wg 256, chunk 128, vec 16, staged), 2387.28 GB/s built-in
# bitap: 2496.77 GB/s tuned (wg 256, chunk 128, vec 16, staged), 2534.71 GB/s built-in
# kmp: 382.06 GB/s tuned (wg 256, chunk 128, vec 16), 399.27 GB/s built-in
# bmh: 1040.27 GB/s tuned (wg 256, chunk 48), 1040.27 GB/s built-in
# dfa loads of 4 / 8 / 16 bytes unstaged: 670.44 / 1088.30 / 1572.20 GB/s
# bitap loads of 4 / 8 / 16 bytes unstaged: 672.83 / 1092.17 / 1571.03 GB/s
# kmp loads of 4 / 8 / 16 bytes: 328.16 / 366.63 / 382.06 GB/s
# dfa staged 2387.96 GB/s, unstaged 1572.20 GB/s
# bitap staged 2496.77 GB/s, unstaged 1571.03 GB/s
# the time budget (40 s) ended the search early
wg = 256
chunk = 128
stage = on
vec = 16
