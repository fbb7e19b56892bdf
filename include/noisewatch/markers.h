// SPDX-License-Identifier: Apache-2.0
/* noisewatch window markers for C and C++ benchmarks.
 *
 *   #include <noisewatch/markers.h>     (add -I<noisewatch>/include; needs <sys/sdt.h>, Debian:
 *                                        apt-get install systemtap-sdt-dev)
 *   for (int i = 0; i < iterations; ++i) {
 *     NOISEWATCH_WINDOW_BEGIN();        or NOISEWATCH_WINDOW_BEGIN_LABEL(i)
 *     step();
 *     NOISEWATCH_WINDOW_END();
 *   }
 *
 * Under `noisewatch --windows -- ./bench` every window is a repetition of its own. Each marker is
 * a USDT probe (noisewatch:window_begin, noisewatch:window_end): a single nop when nothing traces
 * it, so the markers can stay in production builds. Under noisewatch a marker pair costs a few
 * microseconds (bench/RESULTS.md). The label is an integer (a long); noisewatch records it with
 * the window. Windows are the process's, one at a time: a begin while one is open ends it there.
 */
#ifndef NOISEWATCH_MARKERS_H
#define NOISEWATCH_MARKERS_H

#include <sys/sdt.h>

#define NOISEWATCH_WINDOW_BEGIN() DTRACE_PROBE(noisewatch, window_begin)
#define NOISEWATCH_WINDOW_BEGIN_LABEL(label) DTRACE_PROBE1(noisewatch, window_begin, (long)(label))
#define NOISEWATCH_WINDOW_END() DTRACE_PROBE(noisewatch, window_end)

#endif
