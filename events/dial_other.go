//go:build !linux

package events

import (
	"syscall"
	"time"
)

// tcpControl does nothing where TCP_USER_TIMEOUT is not available: the
// keep-alives still end an idle connection to a lost host.
func tcpControl(time.Duration) func(network, address string, c syscall.RawConn) error {
	return nil
}
