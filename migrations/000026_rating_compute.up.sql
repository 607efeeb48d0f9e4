-- rating_compute is the arithmetic of rating_apply (000019) on its own:
-- the Weng-Lin Plackett-Luce update of package rating, from the
-- participants' ratings before a game and their ranks to their ratings
-- after it. It reads and writes no table. rating_apply calls it for the
-- game that has just finished; `azuld projections rebuild` calls it for
-- every finished game in turn while it holds the ratings in memory, and
-- writes each rating once at the end (updating the same rows thousands of
-- times in one transaction made a rebuild of a long history superlinear).
-- Both paths run these statements, so both give the same numbers to the
-- last bit. The statements are those of 000019, unchanged.
CREATE FUNCTION rating_compute(
    mu double precision[], sigma double precision[], p_ranks integer[],
    p_beta double precision, p_kappa double precision, p_tau double precision,
    OUT new_mu double precision[], OUT new_sg double precision[])
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    n      integer := coalesce(cardinality(mu), 0);
    s2     double precision[];
    e      double precision[];
    sumq   double precision[];
    a      double precision[];
    c      double precision := 0;
    omega  double precision;
    delta  double precision;
    quot   double precision;
    i      integer;
    q      integer;
BEGIN
    new_mu := '{}';
    new_sg := '{}';
    FOR i IN 1..n LOOP
        s2[i] := sigma[i] * sigma[i] + p_tau * p_tau;
        c := c + s2[i] + p_beta * p_beta;
    END LOOP;
    c := sqrt(c);
    FOR i IN 1..n LOOP
        e[i] := exp(mu[i] / c);
    END LOOP;
    FOR q IN 1..n LOOP
        sumq[q] := 0;
        a[q] := 0;
        FOR i IN 1..n LOOP
            IF p_ranks[i] >= p_ranks[q] THEN
                sumq[q] := sumq[q] + e[i];
            END IF;
            IF p_ranks[i] = p_ranks[q] THEN
                a[q] := a[q] + 1;
            END IF;
        END LOOP;
    END LOOP;
    FOR i IN 1..n LOOP
        omega := 0;
        delta := 0;
        FOR q IN 1..n LOOP
            CONTINUE WHEN p_ranks[q] > p_ranks[i];
            quot := e[i] / sumq[q];
            delta := delta + quot * (1 - quot) / a[q];
            IF q = i THEN
                omega := omega + (1 - quot) / a[q];
            ELSE
                omega := omega - quot / a[q];
            END IF;
        END LOOP;
        omega := omega * (s2[i] / c);
        delta := delta * (s2[i] / (c * c) * (sqrt(s2[i]) / c));
        new_mu[i] := mu[i] + omega;
        new_sg[i] := sqrt(s2[i]) * sqrt(greatest(1 - delta, p_kappa));
    END LOOP;
END
$$;

-- rating_apply as in 000019, its arithmetic now rating_compute's.
CREATE OR REPLACE FUNCTION rating_apply(
    p_game uuid, p_ruleset text, p_finished_at timestamptz,
    p_subjects text[], p_players text[], p_bots text[], p_seats integer[], p_ranks integer[],
    p_mu double precision, p_sigma double precision, p_beta double precision,
    p_kappa double precision, p_tau double precision)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    n      integer := coalesce(cardinality(p_subjects), 0);
    mu     double precision[];
    sigma  double precision[];
    new_mu double precision[];
    new_sg double precision[];
BEGIN
    IF n < 2 OR EXISTS (SELECT FROM rating_history WHERE game_id = p_game)
       OR EXISTS (SELECT FROM events WHERE stream_id = p_game AND type = 'game.seat_left') THEN
        RETURN;
    END IF;
    -- The participants' ratings, locked in one order so that two games
    -- rated at once wait for each other instead of losing an update.
    PERFORM 1 FROM ratings r
    WHERE r.ruleset = p_ruleset AND r.players = n AND r.subject = ANY (p_subjects)
    ORDER BY r.subject FOR UPDATE;
    SELECT array_agg(coalesce(r.mu, p_mu) ORDER BY s.i), array_agg(coalesce(r.sigma, p_sigma) ORDER BY s.i)
    INTO mu, sigma
    FROM unnest(p_subjects) WITH ORDINALITY AS s (subject, i)
    LEFT JOIN ratings r ON r.ruleset = p_ruleset AND r.players = n AND r.subject = s.subject;

    SELECT c.new_mu, c.new_sg INTO new_mu, new_sg FROM rating_compute(mu, sigma, p_ranks, p_beta, p_kappa, p_tau) c;

    INSERT INTO ratings (ruleset, players, subject, player_id, bot, mu, sigma, games, last_game_at)
    SELECT p_ruleset, n, p_subjects[k], nullif(p_players[k], '')::uuid, p_bots[k], new_mu[k], new_sg[k], 1, p_finished_at
    FROM generate_series(1, n) AS k
    ON CONFLICT (ruleset, players, subject) DO UPDATE
    SET mu = excluded.mu, sigma = excluded.sigma, games = ratings.games + 1,
        last_game_at = greatest(ratings.last_game_at, excluded.last_game_at);
    INSERT INTO rating_history (game_id, subject, player_id, ruleset, players, seat, rank,
        mu_before, sigma_before, mu_after, sigma_after, finished_at)
    SELECT p_game, p_subjects[k], nullif(p_players[k], '')::uuid, p_ruleset, n, p_seats[k], p_ranks[k],
        mu[k], sigma[k], new_mu[k], new_sg[k], p_finished_at
    FROM generate_series(1, n) AS k;
END
$$;
