#pragma once
// Replacing this process's image in place (execve of its own binary, same command line): what
// a manager does when it loses the leadership. Every thread ends at once, as with an exit —
// nothing of the deposed leader runs on — but the container does not end: the kubelet counts
// no restart, so leaderships lost one after another (a federation etcd slow for a moment, on a
// loaded machine) never put the pod into its restart back-off, where it stood by for nobody
// (docs/HA.md "Fencing").

namespace fed::agent {

// Called by main before any thread starts: the command line to run again.
void remember_command_line(int argc, char** argv);

// How many times this process has replaced its image (0 after a fresh start), read from
// FED_AGENT_INCARNATION, which replace_process_image sets for the next one.
int process_incarnation();

// execve("/proc/self/exe", the remembered command line) with every descriptor but 0-2 closed
// on the exec (listening sockets included: the next image binds them again) and the
// incarnation counted up. If that fails, or main remembered no command line, _Exit(1): the
// container's restart does the same, later.
[[noreturn]] void replace_process_image();

}  // namespace fed::agent
