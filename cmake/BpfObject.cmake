# SPDX-License-Identifier: Apache-2.0
# bpf_object(NAME SOURCE): compile SOURCE for the BPF target and generate NAME.skel.h with
# bpftool; exposes an INTERFACE target NAME_skel whose include path holds the skeleton.
# On x86-64, vmlinux.h is the committed bpf/vmlinux/vmlinux.h, whatever kernel builds it: CO-RE
# relocates every field to the running kernel, so the object is the same everywhere. (Generated
# from the build host's BTF, a build on Debian 12's own 6.1 failed: its types lack
# task_struct.throttled and rq.prev_steal_time_rq, which the programs read where the running kernel
# has them.) Code that needs a newer kernel's types regenerates it on that kernel:
#   bpftool btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux/vmlinux.h
# Another architecture's types come from the build host's BTF.
find_program(BPF_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

set(BPF_GEN_DIR ${CMAKE_BINARY_DIR}/bpf)
file(MAKE_DIRECTORY ${BPF_GEN_DIR})
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
  set(BPF_ARCH x86)
  configure_file(${CMAKE_SOURCE_DIR}/bpf/vmlinux/vmlinux.h ${BPF_GEN_DIR}/vmlinux.h COPYONLY)
else()
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(BPF_ARCH arm64)
  else()
    set(BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  add_custom_command(OUTPUT ${BPF_GEN_DIR}/vmlinux.h
    COMMAND ${BPFTOOL} btf dump file /sys/kernel/btf/vmlinux format c > ${BPF_GEN_DIR}/vmlinux.h.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${BPF_GEN_DIR}/vmlinux.h.tmp ${BPF_GEN_DIR}/vmlinux.h
    COMMENT "Generating vmlinux.h from /sys/kernel/btf/vmlinux")
endif()

function(bpf_object name src)
  set(obj ${BPF_GEN_DIR}/${name}.bpf.o)
  set(skel ${BPF_GEN_DIR}/${name}.skel.h)
  get_filename_component(srcdir ${src} DIRECTORY)
  file(GLOB hdrs ${srcdir}/*.h)
  add_custom_command(OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_ARCH}
            -I${BPF_GEN_DIR} -I${srcdir} -idirafter /usr/include/x86_64-linux-gnu
            -c ${src} -o ${obj}
    DEPENDS ${src} ${hdrs} ${BPF_GEN_DIR}/vmlinux.h
    COMMENT "Compiling BPF object ${name}.bpf.o")
  add_custom_command(OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name}_bpf > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "Generating BPF skeleton ${name}.skel.h")
  add_custom_target(${name}_skel_gen DEPENDS ${skel})
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skel_gen)
  target_include_directories(${name}_skel INTERFACE ${BPF_GEN_DIR} ${srcdir})
endfunction()
