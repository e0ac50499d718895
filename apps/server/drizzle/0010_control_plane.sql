CREATE TABLE "media_leader" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"instance_id" text NOT NULL,
	"url" text NOT NULL,
	"epoch" integer NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"elected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_users" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "call_users_ring_expiry_idx" ON "call_users" USING btree ("expires_at") WHERE "call_users"."outcome" = 'ringing';