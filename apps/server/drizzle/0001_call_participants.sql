DROP INDEX "users_account_idx";--> statement-breakpoint
DROP INDEX "call_users_user_idx";--> statement-breakpoint
ALTER TABLE "call_users" ADD COLUMN "answered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "call_users" ADD COLUMN "left_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_path" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "call_users_open_idx" ON "call_users" USING btree ("user_id") WHERE "call_users"."outcome" = 'accepted' and "call_users"."left_at" is null;--> statement-breakpoint
CREATE INDEX "calls_lead_idx" ON "calls" USING btree ("lead_id");--> statement-breakpoint
CREATE INDEX "calls_live_idx" ON "calls" USING btree ("user_id") WHERE "calls"."status" in ('ringing', 'in-progress');--> statement-breakpoint
CREATE INDEX "users_account_name_idx" ON "users" USING btree ("account_id","full_name","id");--> statement-breakpoint
CREATE INDEX "call_users_user_idx" ON "call_users" USING btree ("user_id","created_at");