CREATE TABLE "audit_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"actor_user_id" integer,
	"action" text NOT NULL,
	"target" text NOT NULL,
	"changes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "prefix" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "profile_id" integer;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "role" text DEFAULT 'agent' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "active" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_user_id_users_id_fk" FOREIGN KEY ("actor_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_account_idx" ON "audit_log" USING btree ("account_id","created_at","id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_profile_id_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."profiles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
UPDATE "users" SET "role" = 'supervisor' WHERE "permissions" ?| array['listen', 'whisper', 'barge'];--> statement-breakpoint
UPDATE "tags" SET "position" = "ranked"."position" FROM (SELECT "id", (row_number() OVER (PARTITION BY "profile_id" ORDER BY "id"))::integer - 1 AS "position" FROM "tags") AS "ranked" WHERE "tags"."id" = "ranked"."id";--> statement-breakpoint
UPDATE "teams" SET "name" = "teams"."name" || ' (' || "teams"."id" || ')' FROM (SELECT "id", row_number() OVER (PARTITION BY "account_id", lower("name") ORDER BY "id") AS "n" FROM "teams") AS "dupes" WHERE "teams"."id" = "dupes"."id" AND "dupes"."n" > 1;--> statement-breakpoint
UPDATE "profiles" SET "name" = "profiles"."name" || ' (' || "profiles"."id" || ')' FROM (SELECT "id", row_number() OVER (PARTITION BY "account_id", lower("name") ORDER BY "id") AS "n" FROM "profiles") AS "dupes" WHERE "profiles"."id" = "dupes"."id" AND "dupes"."n" > 1;--> statement-breakpoint
CREATE UNIQUE INDEX "profiles_account_name_unique" ON "profiles" USING btree ("account_id",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "teams_account_name_unique" ON "teams" USING btree ("account_id",lower("name"));