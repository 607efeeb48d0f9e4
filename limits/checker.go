package limits

import (
	"context"
	"log/slog"
)

// Checker applies a policy's named limits on a shared limiter: the
// checks the API, the pages and the SMTP listener make. A nil *Checker
// limits nothing. Its checks fail open: when the limiter's database does
// not answer, the request goes on and a warning is logged, because an
// outage of the limiter must not stop play (the database that failed
// would then most likely fail the request itself).
type Checker struct {
	limiter *Limiter
	policy  Policy
	log     *slog.Logger
}

// NewChecker returns the checks of a policy (nil: every limit at its
// default) on a limiter; nil when the limiter is nil or off.
func NewChecker(l *Limiter, p Policy, log *slog.Logger) *Checker {
	if l == nil || l.Off() {
		return nil
	}
	if p == nil {
		p = DefaultPolicy()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Checker{limiter: l, policy: p, log: log}
}

// Allow counts one event of key under the named limit: nil when allowed
// (or the limit is off), else a *Refusal.
func (c *Checker) Allow(ctx context.Context, name, key string) error {
	return c.check(ctx, name, key, false)
}

// Peek is Allow without counting: whether one more event would be
// allowed.
func (c *Checker) Peek(ctx context.Context, name, key string) error {
	return c.check(ctx, name, key, true)
}

// Rule is the policy's rule of the named limit; on is false when it is
// off (or c is nil).
func (c *Checker) Rule(name string) (rule Rule, on bool) {
	if c == nil {
		return Rule{}, false
	}
	return c.policy.Rule(name)
}

func (c *Checker) check(ctx context.Context, name, key string, peek bool) error {
	if c == nil {
		return nil
	}
	rule, on := c.policy.Rule(name)
	if !on {
		return nil
	}
	var d Decision
	var err error
	if peek {
		d, err = c.limiter.Peek(ctx, rule, key)
	} else {
		d, err = c.limiter.Allow(ctx, rule, key)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.log.WarnContext(ctx, "rate limit not checked: the request goes on", "limit", name, "err", err.Error())
		return nil
	}
	if d.Allowed {
		return nil
	}
	return Refuse(rule, d)
}
