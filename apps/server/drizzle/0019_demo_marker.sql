ALTER TABLE "accounts" ADD COLUMN "demo" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "demo" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "demo" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- A database seeded before the marker: the seed's accounts by id and name, its logins by e-mail
-- within those accounts only (an address a tenant gave a user of its own account stays theirs),
-- the published key by its hash (sha256 of demo-api-key).
UPDATE "accounts" SET "demo" = true WHERE ("id", "name") IN ((6671, 'Account 6671 (lead names, hidden e-mail, CRM link)'), (9920, 'Account 9920 (phone on the lead card)'), (9420, 'Account 9420 (number in the inbound banner)'), (781, 'Account 781 (no automatic token re-fetch)')) OR "name" = 'Acme Solar (demo)';--> statement-breakpoint
UPDATE "users" SET "demo" = true FROM "accounts" WHERE "users"."account_id" = "accounts"."id" AND "accounts"."demo" AND lower("users"."email") IN ('agent1@example.com', 'agent2@example.com', 'supervisor@example.com', 'admin@example.com', 'agent@a6671.example.com', 'agent@a9920.example.com', 'agent@a9420.example.com', 'agent@a781.example.com');--> statement-breakpoint
UPDATE "api_keys" SET "demo" = true WHERE "key_hash" = 'ca6f2e39b2ff141859b18bb5283aadd5093c8ede2869f3656231a054e54bfc22';
