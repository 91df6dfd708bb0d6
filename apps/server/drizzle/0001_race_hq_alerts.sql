CREATE TABLE "alert_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"alert_id" integer NOT NULL,
	"state" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"by" text,
	"note" text
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"race_id" integer,
	"runner_id" integer,
	"device_id" integer,
	"kind" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"raised_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"lat" double precision,
	"lon" double precision,
	"message" text,
	"acknowledged_by" text,
	"acknowledged_at" timestamp with time zone,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"note" text
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "expected_interval_s" integer;--> statement-breakpoint
ALTER TABLE "races" ADD COLUMN "alert_settings" jsonb;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "emergency_contact" text;--> statement-breakpoint
ALTER TABLE "runners" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "alert_log" ADD CONSTRAINT "alert_log_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_runner_id_runners_id_fk" FOREIGN KEY ("runner_id") REFERENCES "public"."runners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_log_alert_idx" ON "alert_log" USING btree ("alert_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_runner_active_uq" ON "alerts" USING btree ("runner_id","kind") WHERE "alerts"."state" <> 'resolved' AND "alerts"."runner_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_device_active_uq" ON "alerts" USING btree ("device_id","kind") WHERE "alerts"."state" <> 'resolved' AND "alerts"."runner_id" IS NULL;--> statement-breakpoint
CREATE INDEX "alerts_race_state_idx" ON "alerts" USING btree ("race_id","state");--> statement-breakpoint
CREATE INDEX "alerts_state_idx" ON "alerts" USING btree ("state");