/* Kernel/user ABI of marked windows (--windows) and of the timeline (--timeline), included by
 * noise.h. Plain __u32/__u64 fields only, as there. */
#ifndef NOISEWATCH_BPF_WINDOWS_H
#define NOISEWATCH_BPF_WINDOWS_H

/* Windows one process run can mark; later ones are counted (windows_dropped) and not measured. */
#define NW_MAX_WINDOWS 16384
/* Bytes of a marker-fd line the probe reads: "begin " and a label of up to 16 characters. */
#define NW_MARKER_LINE 24
#define NW_LABEL_LEN 16

/* nw_window.flags */
enum nw_window_flag {
  NW_WIN_LABEL = 1,        /* `label` holds an integer label (USDT argument) */
  NW_WIN_TEXT_LABEL = 2,   /* `text` holds the label written after "begin " on the marker fd */
  NW_WIN_IMPLICIT_END = 4, /* no end marker: closed by the next begin */
  NW_WIN_FROM_FD = 8,      /* begun by a marker-fd line (else by the USDT probe) */
};

/* One marked window (BPF_MAP_TYPE_ARRAY indexed by the window's number in its process run).
 * Times are CLOCK_MONOTONIC (bpf_ktime_get_ns), taken at the marker. */
struct nw_window {
  __u64 begin_ns;
  __u64 end_ns;  /* 0 while open */
  __s64 label;
  __u32 flags;   /* enum nw_window_flag */
  __u32 pid;     /* the task that marked the begin */
  char text[NW_LABEL_LEN];
};

/* One timeline event (BPF ring buffer): a charged span at or above the threshold. `end_ns` is
 * CLOCK_MONOTONIC when it was charged; the span is [end_ns - dur_ns, end_ns]. */
struct nw_tl_event {
  __u64 end_ns;
  __u64 dur_ns;
  __u32 kind;   /* enum nw_kind; id and comm as in nw_noise_key */
  __u32 id;
  __u32 cpu;
  __u32 window; /* as nw_noise_key.window */
  char comm[NW_COMM_LEN];
};

/* Per-CPU rate bound of the timeline (BPF_MAP_TYPE_PERCPU_ARRAY, one element). */
struct nw_tl_rate {
  __u64 since;         /* start of the current one-second budget */
  __u64 count;         /* events written in it */
  __u64 dropped_rate;  /* over the per-CPU rate bound: not written, counted */
  __u64 dropped_full;  /* the ring buffer was full: not written, counted */
};

#endif
