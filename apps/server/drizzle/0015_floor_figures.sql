ALTER TABLE "accounts" ADD COLUMN "service_level_seconds" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "wrap_up_ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "wrap_up_call_id" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "presence_changed_at" timestamp with time zone;