CREATE TABLE "checkin_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "checkin_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"entry_id" text NOT NULL,
	"link_id" integer,
	"race_id" integer NOT NULL,
	"checkpoint_id" integer NOT NULL,
	"runner_id" integer,
	"bib_number" text NOT NULL,
	"kind" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"answer" jsonb
);
--> statement-breakpoint
CREATE TABLE "checkin_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "checkin_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"race_id" integer NOT NULL,
	"checkpoint_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"label" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "checkpoints" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "checkpoints_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"race_id" integer NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"distance_m" double precision NOT NULL,
	"lat" double precision NOT NULL,
	"lon" double precision NOT NULL,
	"cutoff_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "runner_status_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "runner_status_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"race_id" integer NOT NULL,
	"runner_id" integer NOT NULL,
	"status" text,
	"reason" text,
	"at" timestamp with time zone NOT NULL,
	"by" text,
	"distance_m" double precision
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "push_subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"race_id" integer NOT NULL,
	"runner_ids" jsonb NOT NULL,
	"kinds" jsonb NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"sent_state" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "feed_id" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "feed_password" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "feed_polled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "feed_error" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "feed_next_poll_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "races" ADD COLUMN "public_delay_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "races" ADD COLUMN "trails_public" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "races" ADD COLUMN "retention_days" integer;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "status" text;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "status_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "status_by" text;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "status_distance_m" double precision;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "hide_position" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "checkin_entries" ADD CONSTRAINT "checkin_entries_link_id_checkin_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."checkin_links"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_entries" ADD CONSTRAINT "checkin_entries_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_entries" ADD CONSTRAINT "checkin_entries_checkpoint_id_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."checkpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_entries" ADD CONSTRAINT "checkin_entries_runner_id_runners_id_fk" FOREIGN KEY ("runner_id") REFERENCES "public"."runners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_links" ADD CONSTRAINT "checkin_links_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkin_links" ADD CONSTRAINT "checkin_links_checkpoint_id_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."checkpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD CONSTRAINT "checkpoints_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runner_status_log" ADD CONSTRAINT "runner_status_log_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runner_status_log" ADD CONSTRAINT "runner_status_log_runner_id_runners_id_fk" FOREIGN KEY ("runner_id") REFERENCES "public"."runners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checkin_entries_entry_uq" ON "checkin_entries" USING btree ("race_id","entry_id");--> statement-breakpoint
CREATE INDEX "checkin_entries_runner_idx" ON "checkin_entries" USING btree ("race_id","runner_id","time");--> statement-breakpoint
CREATE UNIQUE INDEX "checkin_links_token_uq" ON "checkin_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "checkin_links_race_idx" ON "checkin_links" USING btree ("race_id");--> statement-breakpoint
CREATE INDEX "checkpoints_race_idx" ON "checkpoints" USING btree ("race_id","seq");--> statement-breakpoint
CREATE INDEX "runner_status_log_race_idx" ON "runner_status_log" USING btree ("race_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint_race_uq" ON "push_subscriptions" USING btree ("endpoint","race_id");--> statement-breakpoint
CREATE INDEX "push_subscriptions_race_idx" ON "push_subscriptions" USING btree ("race_id");