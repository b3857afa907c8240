"""The game services: lifecycle, the append path, views, archives, talk, orders, ratings."""
