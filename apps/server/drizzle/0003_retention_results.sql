ALTER TABLE "races" ADD COLUMN "fixes_deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "races" ADD COLUMN "final_results" jsonb;