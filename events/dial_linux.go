package events

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tcpControl sets TCP_USER_TIMEOUT on a dialled socket: the most time
// sent data may go unacknowledged before the kernel drops the connection.
// Keep-alives alone do not cover a connection with a statement in flight,
// whose unanswered data is retransmitted for about fifteen minutes.
func tcpControl(timeout time.Duration) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(timeout.Milliseconds()))
		})
		if err == nil {
			err = serr
		}
		if err != nil && (network == "tcp" || network == "tcp4" || network == "tcp6") {
			return fmt.Errorf("set TCP_USER_TIMEOUT on the connection to %s: %w", address, err)
		}
		// A unix socket has no such option, and needs none.
		return nil
	}
}
