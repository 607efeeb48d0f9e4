package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

// engineProbeTimeout bounds the question "does a Docker engine answer?":
// a missing engine must cost the test binary next to nothing.
const engineProbeTimeout = 5 * time.Second

// pullTimeout bounds pulling an image that the engine does not have. An
// engine without a registry fails at once (no such host); the bound is for
// a registry that answers slowly.
const pullTimeout = 3 * time.Minute

// ownerLabel marks the containers pgtest starts with "<host>/<pid>" of the
// test binary, so that a later binary can remove those of a binary that was
// killed before its Close ran (the reaper may be disabled, see startContainer).
const ownerLabel = "org.azuld.pgtest.owner"

// The container's server: its port and the superuser it is set up with
// (whose password is random, so that a test can tell it was never logged).
const (
	containerPort = "5432/tcp"
	containerUser = "postgres"
)

// reachTimeout bounds finding the address of a started container's port.
const reachTimeout = 15 * time.Second

// containerPGData is PGDATA in the postgres images (official and local).
const containerPGData = "/var/lib/postgresql/data"

// containerShmSize is the container's /dev/shm: PostgreSQL's parallel
// queries use it, and Docker's default is 64 MB.
const containerShmSize = 256 << 20

// startContainer runs PostgreSQL in a container when a Docker engine
// answers and has (or can pull) the image.
//
// testcontainers' reaper (Ryuk) removes containers when the test binary
// dies; its image must be on the engine too. Where it cannot be (no
// registry), TESTCONTAINERS_RYUK_DISABLED=true turns it off: Close then
// removes the container, and sweepStaleContainers removes those of killed
// binaries at the next start.
func startContainer(ctx context.Context, opts Options, logger *slog.Logger) (h *Harness, err error) {
	// testcontainers panics on some broken Docker set-ups (its own test
	// helper recovers for that reason); such a set-up is just one more
	// reason to fall through.
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("testcontainers panicked: %v", r)
		}
	}()
	tcLog := testcontainersLogger(logger)
	provider, err := probeEngine(ctx, tcLog)
	if err != nil {
		return nil, err
	}
	defer provider.Close()
	cli := provider.Client()

	image := os.Getenv(EnvImage)
	if image == "" {
		image = DefaultImage
	}
	if err := ensureImage(ctx, cli, image, logger); err != nil {
		return nil, err
	}
	if !testcontainers.ReadConfig().RyukDisabled {
		//lint:ignore SA1019 the one exported name of the reaper's image; testcontainers starts that image.
		if err := ensureImage(ctx, cli, testcontainers.ReaperDefaultImage, logger); err != nil {
			return nil, fmt.Errorf("%w (the reaper; where it cannot be had, set TESTCONTAINERS_RYUK_DISABLED=true)", err)
		}
	}
	sweepStaleContainers(ctx, cli, logger)

	owner, err := ownerValue()
	if err != nil {
		return nil, err
	}
	pw := make([]byte, 12)
	if _, err := rand.Read(pw); err != nil {
		return nil, fmt.Errorf("make the container's password: %w", err)
	}
	password := hex.EncodeToString(pw)
	ctr, err := tcpostgres.Run(ctx, image,
		tcLog,
		tcpostgres.WithUsername(containerUser),
		tcpostgres.WithPassword(password),
		tcpostgres.WithDatabase(containerUser),
		// The module's basic wait strategies, but the port is checked
		// from inside the container only: reachableAddr then finds the
		// address that reaches it from here.
		testcontainers.WithAdditionalWaitStrategy(
			wait.ForLog("database system is ready to accept connections").WithOccurrence(2),
			wait.ForListeningPort(containerPort).SkipExternalCheck(),
		),
		// The module already turns fsync off; a throw-away server needs no
		// more durability. As many connections as a local cluster allows.
		testcontainers.WithCmdArgs("-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=150"),
		testcontainers.WithLabels(map[string]string{ownerLabel: owner}),
		// Data in memory instead of the image's volume on disk: the
		// events and play tests ran 10 to 15% faster here, and no
		// anonymous volume is left behind.
		testcontainers.WithTmpfs(map[string]string{containerPGData: "rw"}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) { hc.ShmSize = containerShmSize }),
	)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("run image %s: %w", image, err), testcontainers.TerminateContainer(ctr))
	}
	terminate := func(ctx context.Context) error {
		return testcontainers.TerminateContainer(ctr, testcontainers.StopContext(ctx))
	}
	addr, err := reachableAddr(ctx, ctr)
	if err != nil {
		return nil, errors.Join(err, terminate(context.WithoutCancel(ctx)))
	}
	admin := (&url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(containerUser, password),
		Host:     addr,
		Path:     "/" + containerUser,
		RawQuery: "sslmode=disable",
	}).String()
	h, err = newHarness(ctx, SourceContainer, admin, terminate, opts, logger)
	if err != nil {
		return nil, errors.Join(err, terminate(context.WithoutCancel(ctx)))
	}
	logger.Info("pgtest: using a PostgreSQL container", "image", image, "container", ctr.GetContainerID()[:12], "addr", addr)
	return h, nil
}

// reachableAddr is the host:port at which the container's PostgreSQL
// answers from this process. testcontainers guesses one host: the bridge
// gateway when this process seems to run in a container (/.dockerenv),
// which is wrong when the engine runs beside it (its published ports are
// then on loopback). Unless TESTCONTAINERS_HOST_OVERRIDE says which, both
// loopback and testcontainers' host are tried, loopback first.
func reachableAddr(ctx context.Context, ctr *tcpostgres.PostgresContainer) (string, error) {
	port, err := ctr.MappedPort(ctx, containerPort)
	if err != nil {
		return "", fmt.Errorf("published port of the container: %w", err)
	}
	tcHost, err := ctr.Host(ctx)
	if err != nil {
		return "", fmt.Errorf("host of the container: %w", err)
	}
	hosts := []string{tcHost}
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !set && tcHost != "127.0.0.1" && tcHost != "localhost" {
		hosts = []string{"127.0.0.1", tcHost}
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	var d net.Dialer
	var errs []error
	for {
		for _, host := range hosts {
			addr := net.JoinHostPort(host, port.Port())
			dctx, dcancel := context.WithTimeout(ctx, time.Second)
			conn, err := d.DialContext(dctx, "tcp", addr)
			dcancel()
			if err == nil {
				_ = conn.Close()
				return addr, nil
			}
			errs = append(errs, err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the container's port %s answers at none of %v: %w", port.Port(), hosts, errors.Join(errs[len(errs)-len(hosts):]...))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// probeEngine asks the Docker engine for its info and returns the
// provider, which the caller closes. Creating the provider cannot be given
// a context, so the probe runs aside and is abandoned after
// engineProbeTimeout.
func probeEngine(ctx context.Context, tcLog testcontainers.LoggerOption) (*testcontainers.DockerProvider, error) {
	ctx, cancel := context.WithTimeout(ctx, engineProbeTimeout)
	defer cancel()
	// testcontainers tries DOCKER_HOST, and when it does not answer goes on
	// to the default socket and others; a DOCKER_HOST that names an engine
	// is meant, so only that engine counts.
	if host := os.Getenv("DOCKER_HOST"); host != "" {
		if err := pingEngine(ctx, host); err != nil {
			return nil, fmt.Errorf("no Docker engine answers at DOCKER_HOST=%s: %w", host, err)
		}
	}
	type result struct {
		provider *testcontainers.DockerProvider
		err      error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("testcontainers panicked: %v", r)}
			}
		}()
		provider, err := testcontainers.NewDockerProvider(tcLog)
		if err != nil {
			done <- result{err: err}
			return
		}
		if err := provider.Health(ctx); err != nil {
			_ = provider.Close()
			done <- result{err: err}
			return
		}
		done <- result{provider: provider}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("no Docker engine answers: %w", r.err)
		}
		return r.provider, nil
	case <-ctx.Done():
		// A provider made after all is closed, not leaked.
		go func() {
			if r := <-done; r.provider != nil {
				_ = r.provider.Close()
			}
		}()
		return nil, fmt.Errorf("no Docker engine answers within %v: %w", engineProbeTimeout, ctx.Err())
	}
}

// pingEngine asks the engine at host whether it answers.
func pingEngine(ctx context.Context, host string) error {
	cli, err := client.New(client.WithHost(host)) // negotiates the API version by default
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// ensureImage makes sure the engine has image: one that is there is used
// as it is; one that is not is pulled once, without testcontainers' retries,
// so that an engine that cannot reach a registry fails in a second with
// the reason instead of backing off for minutes.
func ensureImage(ctx context.Context, cli client.APIClient, image string, logger *slog.Logger) error {
	if _, err := cli.ImageInspect(ctx, image); err == nil {
		return nil
	}
	logger.Info("pgtest: pulling an image the Docker engine does not have", "image", image)
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	resp, err := cli.ImagePull(ctx, image, client.ImagePullOptions{})
	if err == nil {
		err = resp.Wait(ctx)
		_ = resp.Close()
	}
	if err != nil {
		return fmt.Errorf("image %s is not on the Docker engine and pulling it failed (build it locally with "+
			"scripts/images/build.sh and name it in %s): %w", image, EnvImage, err)
	}
	return nil
}

// ownerValue is this test binary's owner label: host name and process id.
func ownerValue() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("label the container: %w", err)
	}
	return host + "/" + strconv.Itoa(os.Getpid()), nil
}

// sweepStaleContainers removes the containers that test binaries on this
// host started and could not remove because they were killed. Containers
// of binaries still running, here or on another host sharing the engine,
// are left alone. Failures are logged: a leftover container costs memory,
// not correctness.
func sweepStaleContainers(ctx context.Context, cli client.APIClient, logger *slog.Logger) {
	host, err := os.Hostname()
	if err != nil {
		return
	}
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: client.Filters{}.Add("label", ownerLabel),
	})
	if err != nil {
		logger.Warn("pgtest: could not list leftover test containers", "err", err)
		return
	}
	for _, c := range list.Items {
		h, pid, ok := strings.Cut(c.Labels[ownerLabel], "/")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || h != host || processAlive(n) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			logger.Warn("pgtest: could not remove a leftover test container", "container", c.ID[:12], "err", err)
			continue
		}
		logger.Info("pgtest: removed a test container left by a killed test binary", "container", c.ID[:12], "pid", n)
	}
}

// processAlive reports whether a process with this id runs (signal 0
// checks without sending anything; EPERM means it runs as another user).
// On Linux a zombie, killed but not yet reaped by its parent, has ended.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// "pid (command) state ...": the state follows the last ')'.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// testcontainersLogger sends testcontainers' log lines to logger.
func testcontainersLogger(logger *slog.Logger) testcontainers.LoggerOption {
	return testcontainers.WithLogger(slogPrintf{logger.With("source", string(SourceContainer))})
}

// slogPrintf carries testcontainers' log lines to slog.
type slogPrintf struct{ log *slog.Logger }

func (l slogPrintf) Printf(format string, v ...any) { l.log.Info(fmt.Sprintf(format, v...)) }
