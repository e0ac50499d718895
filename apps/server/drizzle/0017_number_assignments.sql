CREATE TABLE "number_assignments" (
	"phone_number" text PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "number_assignments" ADD CONSTRAINT "number_assignments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "number_assignments_account_idx" ON "number_assignments" USING btree ("account_id");--> statement-breakpoint
-- The numbers accounts already use as caller numbers stay theirs: the operator reviews them with
-- npm run admin -- list-numbers (docs/deployment.md).
INSERT INTO "number_assignments" ("phone_number", "account_id") SELECT "phone_number", "account_id" FROM "caller_numbers";
