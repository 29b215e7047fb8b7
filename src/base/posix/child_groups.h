// POSIX only: the process groups of the children this process started
// (base/child_processes.h), for run_process and run_in_worker.
#pragma once

#include <sys/types.h>

namespace winml::posix {

// Whether a child started now leads a process group of its own.
bool child_leads_group();
// Remembers a started child (its group, when it leads one) until forget().
void remember_child(pid_t pid, bool leads_group);
void forget_child(pid_t pid);
// Sends `signal` to the child and, when it leads one, its whole group.
void signal_child(pid_t pid, bool leads_group, int signal);

}  // namespace winml::posix
