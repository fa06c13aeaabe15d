/* The median both benchmarks report (cushim-bench's pairs, ptx-bench's rounds). */
#ifndef CUSHIM_BENCH_MEDIAN_H
#define CUSHIM_BENCH_MEDIAN_H

/* The median of v[0..n), which it sorts; 0 for none. */
double bench_median(double *v, int n);

#endif
