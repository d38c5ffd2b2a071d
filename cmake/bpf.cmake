# kdrift_bpf_skeleton(NAME): compiles probes/NAME.bpf.c with clang for the BPF target (CO-RE,
# against the type definitions committed in probes/, never the build machine's kernel) and
# turns the object into ${CMAKE_BINARY_DIR}/probes/NAME.skel.h with `bpftool gen skeleton`.
# Adds the header to the list in KDRIFT_BPF_SKELETONS (parent scope) for a target to depend on,
# and NAME to KDRIFT_BPF_PROGRAMS (what `kdrift --version` lists).
find_program(KDRIFT_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(KDRIFT_BPFTOOL bpftool PATHS /usr/sbin /sbin REQUIRED)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
  set(KDRIFT_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(KDRIFT_BPF_ARCH arm64)
else()
  message(FATAL_ERROR "no BPF target architecture known for ${CMAKE_SYSTEM_PROCESSOR}")
endif()
set(KDRIFT_BPF_INCLUDE_DIR ${CMAKE_BINARY_DIR}/probes)

function(kdrift_bpf_skeleton name)
  set(source ${PROJECT_SOURCE_DIR}/probes/${name}.bpf.c)
  set(object ${KDRIFT_BPF_INCLUDE_DIR}/${name}.bpf.o)
  set(skeleton ${KDRIFT_BPF_INCLUDE_DIR}/${name}.skel.h)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/probes/*.h)
  add_custom_command(OUTPUT ${skeleton}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${KDRIFT_BPF_INCLUDE_DIR}
    COMMAND ${KDRIFT_CLANG} -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_${KDRIFT_BPF_ARCH}
            -I${PROJECT_SOURCE_DIR}/probes -c ${source} -o ${object}
    COMMAND sh -c "'${KDRIFT_BPFTOOL}' gen skeleton '${object}' name ${name} > '${skeleton}.tmp'"
    COMMAND ${CMAKE_COMMAND} -E rename ${skeleton}.tmp ${skeleton}
    DEPENDS ${source} ${headers}
    COMMENT "BPF skeleton ${name}"
    VERBATIM)
  set(KDRIFT_BPF_SKELETONS ${KDRIFT_BPF_SKELETONS} ${skeleton} PARENT_SCOPE)
  set(KDRIFT_BPF_PROGRAMS ${KDRIFT_BPF_PROGRAMS} ${name} PARENT_SCOPE)
endfunction()
