# The layers' include boundaries hold: a source of a layer that includes a
# header of a layer above it (or beside it) does not compile, because that
# layer's include directories do not hold the header (CMakeLists.txt, "The
# layers"; docs/LAYERS.md). Each probe compiles one line, #include "HEADER",
# with exactly the include directories and definitions the layer's own
# sources get; the controls show the same command compiles the headers the
# layer may include, so a probe fails for the boundary and nothing else.
set(KBV_PROBE_DIR ${CMAKE_CURRENT_BINARY_DIR}/layering)
file(MAKE_DIRECTORY ${KBV_PROBE_DIR})

# kbv_layer_probe(NAME TARGET HEADER ALLOWED|REFUSED)
function(kbv_layer_probe name target header expect)
  set(src ${KBV_PROBE_DIR}/${name}.c)
  file(WRITE ${src} "#include \"${header}\"\nint kbv_layer_probe_${name};\n")
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  add_test(NAME layering_${name}
           COMMAND ${CMAKE_C_COMPILER} -std=c11 -fsyntax-only
                   "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
                   "-I$<JOIN:${incs},;-I>" ${src}
           COMMAND_EXPAND_LISTS)
  if(expect STREQUAL "REFUSED")
    # fails, and for the one reason: the header is not there to be found
    set_tests_properties(layering_${name} PROPERTIES
        PASS_REGULAR_EXPRESSION "${header}: No such file or directory")
  endif()
  set_tests_properties(layering_${name} PROPERTIES LABELS "unit;layering")
endfunction()

# What each layer may include (controls) ...
kbv_layer_probe(graph_sees_core        kbv_graph   core/status.h       ALLOWED)
kbv_layer_probe(dist_sees_graph        kbv_dist    graph/problem_def.h ALLOWED)
kbv_layer_probe(exec_sees_dist         kbv_exec    dist/dist.h         ALLOWED)
kbv_layer_probe(cpu_sees_exec          kbv_cpu     exec/backend.h      ALLOWED)
kbv_layer_probe(record_sees_abi        kbv_record  kbv/candidate.h     ALLOWED)
kbv_layer_probe(eval_sees_record       kbv_eval    record/results.h    ALLOWED)
kbv_layer_probe(eval_sees_wire         kbv_eval    wire/child_proto.h  ALLOWED)
kbv_layer_probe(report_sees_dist       kbv_report  dist/draws.h        ALLOWED)
kbv_layer_probe(runner_sees_wire       kbv-runner  wire/child_proto.h  ALLOWED)
kbv_layer_probe(mpi_sees_eval          kbv_mpi     eval/workers.h      ALLOWED)
# ... and what it may not: the layers above it, and those beside it.
kbv_layer_probe(core_refuses_graph     kbv_core    graph/graph.h       REFUSED)
kbv_layer_probe(graph_refuses_dist     kbv_graph   dist/dist.h         REFUSED)
kbv_layer_probe(dist_refuses_exec      kbv_dist    exec/backend.h      REFUSED)
kbv_layer_probe(exec_refuses_eval      kbv_exec    eval/protocol.h     REFUSED)
kbv_layer_probe(exec_refuses_cpu       kbv_exec    cpu/cpu_backend.h   REFUSED)
kbv_layer_probe(cpu_refuses_cuda       kbv_cpu     cuda/cuda_impl.h    REFUSED)
kbv_layer_probe(cuda_refuses_eval      kbv_cuda    eval/child.h        REFUSED)
kbv_layer_probe(record_refuses_graph   kbv_record  graph/graph.h       REFUSED)
kbv_layer_probe(record_refuses_report  kbv_record  report/metrics.h    REFUSED)
kbv_layer_probe(sandbox_refuses_eval   kbv_sandbox eval/child.h        REFUSED)
kbv_layer_probe(eval_refuses_report    kbv_eval    report/metrics.h    REFUSED)
kbv_layer_probe(eval_refuses_gen       kbv_eval    gen/prompt.h        REFUSED)
kbv_layer_probe(report_refuses_eval    kbv_report  eval/protocol.h     REFUSED)
kbv_layer_probe(report_refuses_exec    kbv_report  exec/backend.h      REFUSED)
kbv_layer_probe(gen_refuses_eval       kbv_gen     eval/protocol.h     REFUSED)
kbv_layer_probe(runner_refuses_eval    kbv-runner  eval/child.h        REFUSED)
kbv_layer_probe(mpi_refuses_cli        kbv_mpi     cli/options.h       REFUSED)
