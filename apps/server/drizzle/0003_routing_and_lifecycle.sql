CREATE TABLE "call_phones" (
	"id" serial PRIMARY KEY NOT NULL,
	"call_id" integer NOT NULL,
	"participant_id" text NOT NULL,
	"direction" text NOT NULL,
	"phone_number" text NOT NULL,
	"from_number" text,
	"state" text DEFAULT 'ringing' NOT NULL,
	"failure" text,
	"answered_at" timestamp with time zone,
	"left_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_users" ADD COLUMN "invited_by_user_id" integer;--> statement-breakpoint
ALTER TABLE "call_users" ADD COLUMN "team_id" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "source" text DEFAULT 'web' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "waiting_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "team_id" integer;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "ring_timeout_ms" integer;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "wrap_up_seconds" integer DEFAULT 60 NOT NULL;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "queue_timeout_seconds" integer DEFAULT 3600 NOT NULL;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "availability" jsonb;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "from_number" text;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "status" text DEFAULT 'sent' NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "error" text;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "provider_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "idle_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "wrap_up_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "call_phones" ADD CONSTRAINT "call_phones_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_phones_call_idx" ON "call_phones" USING btree ("call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "call_phones_participant_unique" ON "call_phones" USING btree ("participant_id");--> statement-breakpoint
ALTER TABLE "call_users" ADD CONSTRAINT "call_users_invited_by_user_id_users_id_fk" FOREIGN KEY ("invited_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_users" ADD CONSTRAINT "call_users_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_queue_idx" ON "calls" USING btree ("account_id","waiting_since") WHERE "calls"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "sms_messages_account_idx" ON "sms_messages" USING btree ("account_id","created_at");