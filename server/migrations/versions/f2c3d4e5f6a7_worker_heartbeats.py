"""worker heartbeats: a notice worker starting after an outage moves the deadlines by its length

Revision ID: f2c3d4e5f6a7
Revises: f1b2c3d4e5f6
Create Date: 2026-12-02 00:45:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f2c3d4e5f6a7'
down_revision = 'f1b2c3d4e5f6'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'worker_heartbeats',
        sa.Column('name', sa.String(length=32), primary_key=True),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False))


def downgrade():
    op.drop_table('worker_heartbeats')
