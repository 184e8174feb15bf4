// Parameter sets whose streamed points stay in their parameter file
// (cuzk_srs_open_file): the host reads of a chunk's raw bytes.
#pragma once

#include <stdint.h>

// Threads one chunk's read is spread over (each preads a contiguous part):
// CUZK_FILE_READ_THREADS (1..64), else 8.
unsigned file_read_threads();

// n bytes at offset off of fd into dst (page-locked host memory), by up to
// file_read_threads() threads; *ms: the read's wall time. A short read (the
// file shrank) or an I/O error fails with CUZK_ERR_ARG naming the range.
int file_read(int fd, void* dst, uint64_t n, uint64_t off, double* ms);
