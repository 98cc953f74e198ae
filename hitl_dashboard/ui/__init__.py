"""Reflex pages, states and components. Only this package and the app module import reflex."""
