#include "base/child_processes.h"

#include <signal.h>

#include <atomic>

#include "base/posix/child_groups.h"

namespace winml {

namespace {

// Lock-free, so that a signal handler can walk it: slot values are a
// child's pid, negated when it leads a group (kill(-pgid) reaches the group).
constexpr int kSlots = 256;
std::atomic<pid_t> g_children[kSlots];
std::atomic<bool> g_keep_in_group{false};

}  // namespace

void end_all_children_now() {
  for (auto& slot : g_children) {
    const pid_t target = slot.load();
    if (target != 0) ::kill(target, SIGKILL);
  }
}

void keep_children_in_own_group() { g_keep_in_group = true; }

namespace posix {

bool child_leads_group() { return !g_keep_in_group.load(); }

void remember_child(pid_t pid, bool leads_group) {
  const pid_t target = leads_group ? -pid : pid;
  for (auto& slot : g_children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, target)) return;
  }
  // More children at once than slots: this one is not ended by a stop's last resort.
}

void forget_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t v = slot.load();
    if (v == pid || v == -pid) slot.compare_exchange_strong(v, 0);
  }
}

void signal_child(pid_t pid, bool leads_group, int signal) {
  if (!leads_group || ::kill(-pid, signal) != 0) ::kill(pid, signal);
}

}  // namespace posix

}  // namespace winml
