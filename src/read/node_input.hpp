// The one plan a read path node (HotheapRead, HotheapProject) runs below itself.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "executor/executor.h"
#include "nodes/execnodes.h"
}

namespace hotplus {

// Rescans the node's input as ExecReScan() does a node's lefttree: the node's changed
// parameters become the input's, and an input with changed parameters is rescanned by its
// next ExecProcNode instead.
inline void
rescan_input(CustomScanState *node, PlanState *input)
{
	if (node->ss.ps.chgParam != nullptr)
		UpdateChangedParamSet(input, node->ss.ps.chgParam);
	if (input->chgParam == nullptr)
		ExecReScan(input);
}

} // namespace hotplus
