ALTER TABLE "devices" ADD COLUMN "last_uplink_without_position_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "uplinks_without_position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "positions" ADD COLUMN "accuracy_m" double precision;--> statement-breakpoint
ALTER TABLE "positions" ADD COLUMN "heading_deg" double precision;