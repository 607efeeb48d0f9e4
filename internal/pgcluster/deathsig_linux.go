package pgcluster

import "syscall"

// setParentDeathSignal makes the kernel send sig to the server when the
// process that started it dies, so a crashed azuld or test binary does not
// leave an orphaned server behind.
func setParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}
