// The pages answer; the background is not run here.
