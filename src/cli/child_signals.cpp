#include "child_signals.hpp"

namespace gpumeter::cli {
namespace {

volatile sig_atomic_t g_child = 0;    // the command's pid while it runs, for the forwarder
volatile sig_atomic_t g_pending = 0;  // a signal that came before the command had a pid

extern "C" void forward_signal(int sig) {
  if (g_child > 0) {
    ::kill(static_cast<pid_t>(g_child), sig);
  } else {
    g_pending = sig;
  }
}

}  // namespace

SignalsWhileRunning::SignalsWhileRunning() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  struct sigaction forward {};
  forward.sa_handler = forward_signal;
  sigemptyset(&forward.sa_mask);
  ::sigaction(SIGINT, &ignore, &saved_[0]);
  ::sigaction(SIGQUIT, &ignore, &saved_[1]);
  ::sigaction(SIGTERM, &forward, &saved_[2]);
  ::sigaction(SIGHUP, &forward, &saved_[3]);
}

SignalsWhileRunning::~SignalsWhileRunning() {
  g_child = 0;
  g_pending = 0;
  ::sigaction(SIGINT, &saved_[0], nullptr);
  ::sigaction(SIGQUIT, &saved_[1], nullptr);
  ::sigaction(SIGTERM, &saved_[2], nullptr);
  ::sigaction(SIGHUP, &saved_[3], nullptr);
}

void SignalsWhileRunning::started(pid_t pid) {
  g_child = pid;
  if (g_pending != 0) ::kill(pid, g_pending);  // it came while the command was starting
}

}  // namespace gpumeter::cli
