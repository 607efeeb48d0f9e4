//go:build !linux

package pgcluster

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent death
// signal; an orphaned server is then found by the next Start (pg_ctl status).
func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
