-- Ratings (docs/ratings.md): a read model like results, a function of the
-- finished games taken in log order. The follower of the log (or the
-- append's transaction) rates a game when it finishes; `azuld projections
-- rebuild` truncates both tables and rates every finished game again in
-- the order of the appends that finished them, to the same numbers.

-- ratings: the current rating of each player, and of each bot kind, per
-- rule set and number of players. subject is the player's id as text, or
-- 'bot:' and the bot's kind; player_id repeats a player's id for the join
-- with players (names are read from there, never stored here).
CREATE TABLE ratings (
    ruleset      text NOT NULL,
    players      integer NOT NULL,
    subject      text NOT NULL,
    player_id    uuid,
    bot          text NOT NULL DEFAULT '',
    mu           double precision NOT NULL,
    sigma        double precision NOT NULL,
    -- The shown rating: mu - 3 sigma.
    ordinal      double precision GENERATED ALWAYS AS (mu - 3 * sigma) STORED,
    games        integer NOT NULL,
    last_game_at timestamptz NOT NULL,
    PRIMARY KEY (ruleset, players, subject)
);
-- The leaderboard: best first, keyset pages on (ordinal, subject), both
-- descending so that a page's bound is one row comparison the index
-- answers.
CREATE INDEX ratings_leaderboard_idx ON ratings (ruleset, players, ordinal DESC, subject DESC);
-- A profile's ratings.
CREATE INDEX ratings_by_player_idx ON ratings (player_id) WHERE player_id IS NOT NULL;

-- rating_history: one row per rated game and participant, the rating
-- before and after it (the chart of a profile).
CREATE TABLE rating_history (
    game_id      uuid NOT NULL,
    subject      text NOT NULL,
    player_id    uuid,
    ruleset      text NOT NULL,
    players      integer NOT NULL,
    seat         integer NOT NULL,
    rank         integer NOT NULL,
    mu_before    double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu_after     double precision NOT NULL,
    sigma_after  double precision NOT NULL,
    finished_at  timestamptz NOT NULL,
    PRIMARY KEY (game_id, subject)
);
CREATE INDEX rating_history_by_subject_idx ON rating_history (subject, ruleset, players, finished_at DESC);

-- rating_apply rates one finished game: the Weng-Lin Plackett-Luce update
-- of package rating (rating.Params.Rate), written out here because the
-- follower of the log writes its read models in one batch that cannot
-- read back between statements; statements of a batch run in order, so
-- each game's update reads the ratings the previous one wrote. The model's
-- constants come from the caller (rating.Default), so they live in one
-- place. A game already in rating_history is not rated again (the same
-- finish applied twice changes nothing), and a game in which a seat was
-- left (game.seat_left: its player gave it to a bot or forfeited) is not
-- rated at all. The caller checks the rest: every seat held by a
-- different player or bot kind, at least two.
CREATE FUNCTION rating_apply(
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
    s2     double precision[];
    e      double precision[];
    sumq   double precision[];
    a      double precision[];
    new_mu double precision[] := '{}';
    new_sg double precision[] := '{}';
    c      double precision := 0;
    omega  double precision;
    delta  double precision;
    quot   double precision;
    i      integer;
    q      integer;
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

    -- rating.Params.Rate, step by step.
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
