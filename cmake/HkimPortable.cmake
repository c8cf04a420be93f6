# Programs that are copied into training images (hkim-wrapper, hkim-nccl-check) must start on
# glibc 2.34 or newer and need no shared library beyond glibc's own and libgcc_s
# (tests/wrapper/glibc_floor_test.sh checks both on every build):
#   - libstdc++ is linked statically (-static-libstdc++): images carry any version of it, or none;
#   - libgcc_s stays dynamic: a static unwinder (libgcc_eh) calls _dl_find_object@GLIBC_2.35,
#     while the image's own libgcc_s.so.1 uses whatever its glibc has;
#   - wrapper/common/glibc_floor.cc defines arc4random so libstdc++.a's random.o binds to it
#     instead of arc4random@GLIBC_2.36.
set(HKIM_GLIBC_FLOOR_SOURCE ${CMAKE_CURRENT_LIST_DIR}/../wrapper/common/glibc_floor.cc)

function(hkim_portable_executable target)
  target_sources(${target} PRIVATE ${HKIM_GLIBC_FLOOR_SOURCE})
  target_link_options(${target} PRIVATE -static-libstdc++)
endfunction()
