ALTER TABLE "twilio_parties" ADD COLUMN "pending_input" text;--> statement-breakpoint
ALTER TABLE "twilio_parties" ADD COLUMN "pending_status" text;--> statement-breakpoint
ALTER TABLE "twilio_parties" ADD COLUMN "pending_was_ringing" boolean;--> statement-breakpoint
ALTER TABLE "twilio_parties" ADD COLUMN "pending_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "twilio_parties_pending_idx" ON "twilio_parties" USING btree ("pending_until") WHERE "twilio_parties"."pending_input" is not null;