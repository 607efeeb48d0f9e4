package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultOSUser is the account the server programs run as when the calling
// process is root: initdb and postgres refuse to run as root, and the
// distribution packages create this account.
const DefaultOSUser = "postgres"

// runner starts the PostgreSQL programs, as another OS user when needed.
type runner struct {
	// cred is nil when the programs run as the calling user.
	cred *syscall.Credential
	name string
	uid  int
	gid  int
}

// newRunner decides who runs the server. As root it switches to the named
// account (DefaultOSUser when empty); otherwise it runs as the caller.
func newRunner(osUser string) (runner, error) {
	if os.Geteuid() != 0 {
		return runner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	if osUser == "" {
		osUser = DefaultOSUser
	}
	u, err := user.Lookup(osUser)
	if err != nil {
		return runner{}, fmt.Errorf("PostgreSQL refuses to run as root, and the OS user %q to run it as was not found (%v): "+
			"create it (useradd --system --user-group %s, or apt-get install postgresql which creates it) "+
			"or start azuld as a non-root user", osUser, err, osUser)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return runner{}, fmt.Errorf("OS user %q has a non-numeric uid %q", osUser, u.Uid)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return runner{}, fmt.Errorf("OS user %q has a non-numeric gid %q", osUser, u.Gid)
	}
	if uid == 0 {
		return runner{}, fmt.Errorf("OS user %q is root; PostgreSQL refuses to run as root: name a non-root account", osUser)
	}
	// Empty Groups drops root's supplementary groups in the child.
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	return runner{cred: cred, name: osUser, uid: uid, gid: gid}, nil
}

// command prepares a program run that ends with ctx. The program is
// interrupted rather than killed, so that an initdb cut short removes what
// it wrote (a half-made data dir would pass for a cluster at the next
// start); it is killed if it has not exited a minute later. (Ten seconds
// were too few on a machine busy writing to its disk: initdb was killed
// while it removed its files.)
func (r runner) command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	r.prepare(cmd)
	return cmd
}

// prepare sets the credentials and a clean environment on cmd.
func (r runner) prepare(cmd *exec.Cmd) {
	cmd.Env = cleanEnv(os.Environ())
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if r.cred != nil {
		cmd.SysProcAttr.Credential = r.cred
	}
}

// cleanEnv drops the PG* variables (PGDATA, PGPORT, PGHOST, ...) a user may
// have set for other servers: every setting of the private cluster is passed
// explicitly, and a stray one must not leak in.
func cleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "PG") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// own gives path to the server's account. Nothing to do when not switching users.
func (r runner) own(path string) error {
	if r.cred == nil {
		return nil
	}
	if err := os.Lchown(path, r.uid, r.gid); err != nil {
		return fmt.Errorf("give %s to OS user %s: %w", path, r.name, err)
	}
	return nil
}

// checkReachable fails clearly when the server's account cannot enter every
// directory above dir; otherwise initdb would fail with a bare "permission
// denied". Typical case: a data dir under /root or under a 0700 temp dir.
func (r runner) checkReachable(dir string) error {
	if r.cred == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if ok && !r.canEnter(info.Mode().Perm(), int(st.Uid), int(st.Gid)) {
			return fmt.Errorf("data dir %s is not reachable by OS user %s, which runs PostgreSQL: "+
				"%s (mode %04o, owner uid %d) does not let it in; choose a data dir under a directory it can enter",
				dir, r.name, p, uint32(info.Mode().Perm()), st.Uid)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (r runner) canEnter(perm os.FileMode, uid, gid int) bool {
	switch {
	case uid == r.uid:
		return perm&0o100 != 0
	case gid == r.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
