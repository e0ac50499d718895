ALTER TABLE "twilio_parties" ADD COLUMN "pending_silent" boolean;--> statement-breakpoint
ALTER TABLE "twilio_parties" ADD COLUMN "remove_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "twilio_parties_remove_idx" ON "twilio_parties" USING btree ("remove_until") WHERE "twilio_parties"."remove_until" is not null;