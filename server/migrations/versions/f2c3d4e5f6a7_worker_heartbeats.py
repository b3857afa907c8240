"""worker heartbeats (a notice worker back from an outage moves the deadlines by its length), and
the calendar feed's generation, weekends off

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
    with op.batch_alter_table('players') as batch:
        batch.add_column(sa.Column('calendar_generation', sa.Integer(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('weekends_off', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade():
    with op.batch_alter_table('players') as batch:
        batch.drop_column('weekends_off')
        batch.drop_column('calendar_generation')
    op.drop_table('worker_heartbeats')
