ALTER TABLE "alerts" ADD COLUMN "message_key" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "message_params" jsonb;