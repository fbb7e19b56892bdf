# SPDX-License-Identifier: Apache-2.0
# Writes OUT, a header defining NOISEWATCH_COMMIT: the commit the sources at SRC are at (git), or
# COMMIT when a packager gives it (a tarball has no .git), else "unknown". Rewritten only when the
# text changes, so a new commit recompiles one file and an unchanged tree nothing.
#   cmake -DSRC=<source dir> -DOUT=<header> [-DCOMMIT=<id>] -P Commit.cmake
if(COMMIT)
  set(commit "${COMMIT}")
else()
  execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  else()
    # Built from a tree with changes to tracked files: say so, the commit alone would not be the code.
    execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#define NOISEWATCH_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
