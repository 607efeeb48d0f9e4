package pgtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// engineProbeTimeout bounds the question "does a Docker engine answer?":
// a missing engine must cost the test binary next to nothing.
const engineProbeTimeout = 5 * time.Second

// startContainer runs PostgreSQL in a container when a Docker engine
// answers. testcontainers removes the container when the test binary ends
// (its reaper), even when Close is never reached.
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
	if err := probeEngine(ctx, tcLog); err != nil {
		return nil, err
	}

	image := os.Getenv(EnvImage)
	if image == "" {
		image = DefaultImage
	}
	ctr, err := tcpostgres.Run(ctx, image,
		tcLog,
		tcpostgres.BasicWaitStrategies(),
		// The module already turns fsync off; a throw-away server needs no more durability.
		testcontainers.WithCmdArgs("-c", "synchronous_commit=off", "-c", "full_page_writes=off"),
	)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("run image %s: %w", image, err), testcontainers.TerminateContainer(ctr))
	}
	terminate := func(ctx context.Context) error {
		return testcontainers.TerminateContainer(ctr, testcontainers.StopContext(ctx))
	}
	admin, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("address of the container: %w", err), terminate(context.WithoutCancel(ctx)))
	}
	h, err = newHarness(ctx, SourceContainer, admin, terminate, opts, logger)
	if err != nil {
		return nil, errors.Join(err, terminate(context.WithoutCancel(ctx)))
	}
	logger.Info("pgtest: using a PostgreSQL container", "image", image)
	return h, nil
}

// probeEngine asks the Docker engine for its info. Creating the provider
// cannot be given a context, so the probe runs aside and is abandoned
// after engineProbeTimeout.
func probeEngine(ctx context.Context, tcLog testcontainers.LoggerOption) error {
	ctx, cancel := context.WithTimeout(ctx, engineProbeTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("testcontainers panicked: %v", r)
			}
		}()
		provider, err := testcontainers.NewDockerProvider(tcLog)
		if err != nil {
			done <- err
			return
		}
		defer provider.Close()
		done <- provider.Health(ctx)
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("no Docker engine answers: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no Docker engine answers within %v: %w", engineProbeTimeout, ctx.Err())
	}
}

// testcontainersLogger sends testcontainers' log lines to logger.
func testcontainersLogger(logger *slog.Logger) testcontainers.LoggerOption {
	return testcontainers.WithLogger(slogPrintf{logger.With("source", string(SourceContainer))})
}

// slogPrintf carries testcontainers' log lines to slog.
type slogPrintf struct{ log *slog.Logger }

func (l slogPrintf) Printf(format string, v ...any) { l.log.Info(fmt.Sprintf(format, v...)) }
