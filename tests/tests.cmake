# Unit tests: every tests/unit/test_*.c is one cmocka executable and one CTest test.
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
file(GLOB KBV_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${KBV_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src} ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit/support/host_tensor.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit/support/processes.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit/support/op_check.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit)
  target_link_libraries(${name} PRIVATE kbvcore PkgConfig::CMOCKA)
  target_compile_definitions(${name} PRIVATE
      KBV_TEST_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
      KBV_TEST_BINARY_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS unit)
  if(name STREQUAL "test_vendor_sandbox")
    # the runner's own sandbox and vendor preparation, outside the runner
    target_sources(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/runner/runner_sandbox.c
                   ${CMAKE_CURRENT_SOURCE_DIR}/src/runner/runner_vendor.c)
    target_include_directories(${name} PRIVATE ${KBV_LAYER_DIR}/runner)
    target_link_libraries(${name} PRIVATE ${CMAKE_DL_LIBS})
  endif()
  # Tests start candidates in kbv-runner and drive the kbv command.
  add_dependencies(${name} kbv-runner kbv)
endforeach()

# GPU tests: tests/gpu/test_*.c, run by tests/gpu/run.sh on a machine with a GPU.
if(KBV_WITH_CUDA)
  file(GLOB KBV_GPU_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/gpu/test_*.c)
  foreach(src ${KBV_GPU_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(gpu_${name} ${src} ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e/op_problems.c)
    target_include_directories(gpu_${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e)
    target_link_libraries(gpu_${name} PRIVATE kbvcore PkgConfig::CMOCKA)
    target_compile_definitions(gpu_${name} PRIVATE
        KBV_TEST_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
        KBV_TEST_BINARY_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  endforeach()
endif()

# The op problems torch_parity.sh checks beside the suite (tests/e2e/op_parity_dump.c).
add_executable(op_parity_dump ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e/op_parity_dump.c
               ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e/op_problems.c)
target_link_libraries(op_parity_dump PRIVATE kbvcore)

# End-to-end tests (shell): tests/e2e/*.sh, run against the built kbv.
file(GLOB KBV_E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e/*.sh)
if(NOT KBV_WITH_CURL)
  list(FILTER KBV_E2E_TESTS EXCLUDE REGEX "(generate|judge)_local\\.sh$")
endif()
if(NOT KBV_WITH_MPI)
  list(FILTER KBV_E2E_TESTS EXCLUDE REGEX "mpi_cpu\\.sh$")
endif()
if(NOT KBV_WITH_PYTHON)
  list(FILTER KBV_E2E_TESTS EXCLUDE REGEX "kernelbench_cpu\\.sh$")
endif()
foreach(script ${KBV_E2E_TESTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME e2e_${name} COMMAND bash ${script} ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(e2e_${name} PROPERTIES TIMEOUT 900 LABELS e2e)
endforeach()
