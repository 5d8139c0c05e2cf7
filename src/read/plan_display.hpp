// What EXPLAIN shows of a plan with shared detoast markers (D14b): heap's expressions.
//
// A marker is a function call around a column (shared_detoast.hpp); ruleutils would show it as
// a cast of the column to its own type inside operator and function arguments. EXPLAIN, EXPLAIN
// ANALYZE and auto_explain with log_analyze print a plan from its PlanState tree once the
// executor has started it (and, when instrumented, finished it), and never run it again: at
// those two points, if the plan has markers, every PlanState is pointed at a copy of its plan
// node whose expressions hold the columns instead of their markers (and the query's plan at a
// copy made of those nodes), made in the query's memory. The plan the executor compiled, and
// any cached plan, are untouched.
//
// Invariants:
//  1. Only display changes: the copies differ from the plan nodes in their marker calls only,
//     and nothing runs from them (EXPLAIN without ANALYZE never runs the plan; an instrumented
//     run is finished).
//  2. Where a plan is printed without instrumentation after it ran (auto_explain without
//     log_analyze), its markers show as casts of a column to its own type.
#pragma once

namespace hotplus {

void plan_display_init(); // _PG_init: chains ExecutorStart_hook and ExecutorFinish_hook

} // namespace hotplus
