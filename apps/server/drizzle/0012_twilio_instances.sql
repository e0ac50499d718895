CREATE TABLE "device_presence" (
	"user_id" integer NOT NULL,
	"instance_id" text NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_presence_user_id_instance_id_pk" PRIMARY KEY("user_id","instance_id")
);
--> statement-breakpoint
CREATE TABLE "twilio_conferences" (
	"call_sid" text PRIMARY KEY NOT NULL,
	"conference_sid" text,
	"held" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "twilio_parties" (
	"call_sid" text NOT NULL,
	"label" text NOT NULL,
	"kind" text NOT NULL,
	"party_id" text NOT NULL,
	"role" text NOT NULL,
	"state" text NOT NULL,
	"removed" boolean DEFAULT false NOT NULL,
	"leg_sid" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "twilio_parties_call_sid_label_pk" PRIMARY KEY("call_sid","label")
);
--> statement-breakpoint
CREATE TABLE "twilio_waiting_callers" (
	"twilio_call_sid" text PRIMARY KEY NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"state" text NOT NULL,
	"claim_call_sid" text,
	"claim_label" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_presence" ADD CONSTRAINT "device_presence_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_presence_heartbeat_idx" ON "device_presence" USING btree ("heartbeat_at");--> statement-breakpoint
CREATE INDEX "twilio_waiting_callers_from_to_idx" ON "twilio_waiting_callers" USING btree ("from_number","to_number","received_at");