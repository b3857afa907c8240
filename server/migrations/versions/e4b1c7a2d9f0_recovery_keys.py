"""recovery keys: a player's recovery public key and the certificates binding it to each main key

Revision ID: e4b1c7a2d9f0
Revises: e5c1a7d0b9f3
Create Date: 2026-12-02 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e4b1c7a2d9f0'
down_revision = 'e5c1a7d0b9f3'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('players') as batch:
        batch.add_column(sa.Column('recovery_key', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('recovery_certs', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('players') as batch:
        batch.drop_column('recovery_certs')
        batch.drop_column('recovery_key')
