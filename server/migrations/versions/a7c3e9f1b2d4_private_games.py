"""private games: a flag and an invite token; private games are never listed

Revision ID: a7c3e9f1b2d4
Revises: f2c3d4e5f6a7
Create Date: 2026-12-01 23:45:00.000000

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'a7c3e9f1b2d4'
down_revision = 'f2c3d4e5f6a7'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('games') as batch:
        batch.add_column(sa.Column('private', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('invite_token', sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table('games') as batch:
        batch.drop_column('invite_token')
        batch.drop_column('private')
