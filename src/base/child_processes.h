// The processes winml-make started and has not yet seen end: what a stop
// must end before winml-make exits, so that no export command or stage
// worker outlives the build that started it (POSIX: each child leads a
// process group; Windows: each child is in a job object that is killed when
// its last handle closes, even when winml-make itself is killed).
#pragma once

namespace winml {

// Ends every child and everything it started, at once. Async-signal-safe:
// an interrupt handler calls it before it exits.
void end_all_children_now();

// Children started from now on stay in this process's group instead of
// leading their own (a stage worker: the build ends the worker's whole group
// at once, the commands it runs with it). Windows needs nothing: a child's
// job nests in its parent's.
void keep_children_in_own_group();

}  // namespace winml
