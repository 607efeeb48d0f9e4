DROP FUNCTION IF EXISTS rating_apply(uuid, text, timestamptz, text[], text[], text[], integer[], integer[],
    double precision, double precision, double precision, double precision, double precision);
DROP TABLE IF EXISTS rating_history;
DROP TABLE IF EXISTS ratings;
