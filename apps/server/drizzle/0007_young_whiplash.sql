ALTER TABLE "devices" ADD COLUMN "claim_hardware_id" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "claim_code" text;