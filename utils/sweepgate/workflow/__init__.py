"""The GitHub Actions wing: what a workflow event runs, and how its matrix fans out."""
