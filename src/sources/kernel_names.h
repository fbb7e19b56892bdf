// The kernel's own names that become source names: softirq vectors (`softirq:TIMER`) and the x86
// APIC vectors the probe traces (`irq:local_timer`), indexed as bpf/noise.h numbers them.
#pragma once
#include <cstdint>
#include <string_view>

namespace nw::sources {

// Softirq vector number -> "HI", "TIMER", ... "RCU", as the kernel's softirq_to_name; "UNKNOWN" beyond.
std::string_view softirq_name(uint32_t vec);
// enum nw_vector -> "local_timer", "reschedule", ...; "vector" beyond.
std::string_view vector_name(uint32_t id);
// Whether an `irq:` name is one of those APIC vectors: a CPU's own interrupt, which no IRQ
// affinity setting moves, unlike a device IRQ.
bool is_apic_vector(std::string_view irq_name);

}  // namespace nw::sources
