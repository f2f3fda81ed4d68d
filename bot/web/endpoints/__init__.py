"""The web app's endpoints, one module a page family; each has `routes(site)`."""
