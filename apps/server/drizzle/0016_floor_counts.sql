CREATE TABLE "floor_count_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"offered" integer NOT NULL,
	"answered" integer NOT NULL,
	"missed" integer NOT NULL,
	"abandoned" integer NOT NULL,
	"sl_met" integer NOT NULL,
	"settled" integer NOT NULL,
	"answer_micros" bigint NOT NULL,
	"handled" integer NOT NULL,
	"handle_micros" bigint NOT NULL,
	"talk_seconds" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "floor_counts" (
	"account_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"offered" integer NOT NULL,
	"answered" integer NOT NULL,
	"missed" integer NOT NULL,
	"abandoned" integer NOT NULL,
	"sl_met" integer NOT NULL,
	"settled" integer NOT NULL,
	"answer_micros" bigint NOT NULL,
	"handled" integer NOT NULL,
	"handle_micros" bigint NOT NULL,
	"talk_seconds" bigint NOT NULL,
	CONSTRAINT "floor_counts_account_id_bucket_pk" PRIMARY KEY("account_id","bucket")
);
--> statement-breakpoint
CREATE INDEX "floor_count_deltas_account_idx" ON "floor_count_deltas" USING btree ("account_id","bucket");--> statement-breakpoint
CREATE INDEX "calls_unended_idx" ON "calls" USING btree ("account_id","created_at") WHERE "calls"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "calls_wrap_up_end_idx" ON "calls" USING btree ("account_id","wrap_up_ended_at") WHERE "calls"."wrap_up_ended_at" is not null;--> statement-breakpoint
-- One call's share of its interval's floor counts (`floor/floor-counts.ts`), `p_sign` 1 to add
-- it, -1 to take it away; no row for a call that is not offered (source web or inbound). The
-- same definitions as `figureColumns` in `floor/call-figures.ts`, less what moves with the clock.
CREATE FUNCTION floor_count_of(
  p_sign integer, p_account_id integer, p_source text, p_created_at timestamptz,
  p_answered_at timestamptz, p_ended_at timestamptz, p_reason text, p_seconds integer,
  p_wrap_up_ended_at timestamptz, p_threshold integer)
RETURNS TABLE (
  account_id integer, bucket timestamptz, offered integer, answered integer, missed integer,
  abandoned integer, sl_met integer, settled integer, answer_micros bigint, handled integer,
  handle_micros bigint, talk_seconds bigint)
LANGUAGE sql STABLE AS $$
  SELECT p_account_id,
    date_bin('15 minutes', p_created_at, timestamptz '2000-01-01 00:00:00+00'),
    p_sign,
    p_sign * (p_answered_at IS NOT NULL)::int,
    p_sign * (p_answered_at IS NULL AND p_ended_at IS NOT NULL
      AND p_reason IS DISTINCT FROM 'caller-hung-up')::int,
    p_sign * (p_answered_at IS NULL AND p_ended_at IS NOT NULL
      AND p_reason IS NOT DISTINCT FROM 'caller-hung-up')::int,
    p_sign * (p_answered_at IS NOT NULL
      AND p_answered_at - p_created_at <= make_interval(secs => p_threshold))::int,
    p_sign * (p_answered_at IS NOT NULL OR p_ended_at IS NOT NULL)::int,
    p_sign * coalesce(round(extract(epoch FROM p_answered_at - p_created_at) * 1000000), 0)::bigint,
    p_sign * (p_answered_at IS NOT NULL AND p_ended_at IS NOT NULL)::int,
    CASE WHEN p_answered_at IS NOT NULL AND p_ended_at IS NOT NULL
      THEN p_sign * (p_seconds::bigint * 1000000
        + coalesce(round(extract(epoch FROM p_wrap_up_ended_at - p_ended_at) * 1000000), 0)::bigint)
      ELSE 0 END,
    p_sign * p_seconds::bigint
  WHERE p_source IN ('web', 'inbound')
$$;
--> statement-breakpoint
-- Appends what a call's insert, change or removal did to the counts (folded every few seconds).
CREATE FUNCTION calls_floor_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  new_threshold integer;
  old_threshold integer;
BEGIN
  -- Variables, not sub-selects, as floor_count_of's arguments: so it is inlined, not run
  -- (and planned) as a function of its own each time.
  IF TG_OP <> 'DELETE' THEN
    SELECT a.service_level_seconds INTO new_threshold FROM accounts a WHERE a.id = NEW.account_id;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.account_id = NEW.account_id THEN
    old_threshold := new_threshold;
  ELSIF TG_OP <> 'INSERT' THEN
    SELECT a.service_level_seconds INTO old_threshold FROM accounts a WHERE a.id = OLD.account_id;
  END IF;
  INSERT INTO floor_count_deltas (account_id, bucket, offered, answered, missed, abandoned,
    sl_met, settled, answer_micros, handled, handle_micros, talk_seconds)
  SELECT f.account_id, f.bucket, sum(f.offered), sum(f.answered), sum(f.missed),
    sum(f.abandoned), sum(f.sl_met), sum(f.settled), sum(f.answer_micros), sum(f.handled),
    sum(f.handle_micros), sum(f.talk_seconds)
  FROM (
    SELECT n.* FROM floor_count_of(1, NEW.account_id, NEW.source, NEW.created_at,
      NEW.answered_at, NEW.ended_at, NEW.reason, NEW.seconds, NEW.wrap_up_ended_at,
      new_threshold) n
    WHERE TG_OP <> 'DELETE'
    UNION ALL
    SELECT o.* FROM floor_count_of(-1, OLD.account_id, OLD.source, OLD.created_at,
      OLD.answered_at, OLD.ended_at, OLD.reason, OLD.seconds, OLD.wrap_up_ended_at,
      old_threshold) o
    WHERE TG_OP <> 'INSERT'
  ) f
  GROUP BY f.account_id, f.bucket
  HAVING (sum(f.offered), sum(f.answered), sum(f.missed), sum(f.abandoned), sum(f.sl_met),
    sum(f.settled), sum(f.answer_micros), sum(f.handled), sum(f.handle_micros),
    sum(f.talk_seconds)) <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Only offered calls, and only changes of what the counts hold: the rest cost nothing.
CREATE TRIGGER calls_floor_counts_insert AFTER INSERT ON calls
  FOR EACH ROW WHEN (NEW.source IN ('web', 'inbound'))
  EXECUTE FUNCTION calls_floor_counts();
--> statement-breakpoint
CREATE TRIGGER calls_floor_counts_delete AFTER DELETE ON calls
  FOR EACH ROW WHEN (OLD.source IN ('web', 'inbound'))
  EXECUTE FUNCTION calls_floor_counts();
--> statement-breakpoint
CREATE TRIGGER calls_floor_counts_update
  AFTER UPDATE OF account_id, source, created_at, answered_at, ended_at, reason, seconds,
    wrap_up_ended_at ON calls
  FOR EACH ROW WHEN ((OLD.source IN ('web', 'inbound') OR NEW.source IN ('web', 'inbound'))
    AND (OLD.account_id, OLD.source, OLD.created_at, OLD.answered_at, OLD.ended_at, OLD.reason,
      OLD.seconds, OLD.wrap_up_ended_at)
    IS DISTINCT FROM (NEW.account_id, NEW.source, NEW.created_at, NEW.answered_at, NEW.ended_at,
      NEW.reason, NEW.seconds, NEW.wrap_up_ended_at))
  EXECUTE FUNCTION calls_floor_counts();
--> statement-breakpoint
-- Counts the account's calls again (its service level threshold changed, so did every sl_met).
CREATE FUNCTION floor_counts_rebuild(p_account_id integer) RETURNS void LANGUAGE sql AS $$
  DELETE FROM floor_count_deltas WHERE account_id = p_account_id;
  DELETE FROM floor_counts WHERE account_id = p_account_id;
  INSERT INTO floor_counts (account_id, bucket, offered, answered, missed, abandoned, sl_met,
    settled, answer_micros, handled, handle_micros, talk_seconds)
  SELECT f.account_id, f.bucket, sum(f.offered), sum(f.answered), sum(f.missed),
    sum(f.abandoned), sum(f.sl_met), sum(f.settled), sum(f.answer_micros), sum(f.handled),
    sum(f.handle_micros), sum(f.talk_seconds)
  FROM calls c JOIN accounts a ON a.id = c.account_id,
    LATERAL floor_count_of(1, c.account_id, c.source, c.created_at, c.answered_at, c.ended_at,
      c.reason, c.seconds, c.wrap_up_ended_at, a.service_level_seconds) f
  WHERE c.account_id = p_account_id
  GROUP BY f.account_id, f.bucket;
$$;
--> statement-breakpoint
CREATE FUNCTION accounts_floor_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM floor_counts_rebuild(NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER accounts_floor_counts
  AFTER UPDATE OF service_level_seconds ON accounts
  FOR EACH ROW WHEN (OLD.service_level_seconds IS DISTINCT FROM NEW.service_level_seconds)
  EXECUTE FUNCTION accounts_floor_counts();
--> statement-breakpoint
-- The calls so far.
SELECT floor_counts_rebuild(id) FROM accounts;
